import { deleteLiveRow, openLiveRow, updateLiveRow, type LiveRowKey } from '../db/queries/live-frames.js';
import type { Logger } from '../logger.js';
import type { ServiceContext } from './context.js';

export type { LiveKind, LiveRowKey as LiveKey } from '../db/queries/live-frames.js';

/** One attempt of the agent (or one replayed step) as the live view lists it. */
export interface LiveStep {
  /** 1-based position among the recorded steps (a failed attempt carries the next position). */
  step: number;
  action: string;
  description: string;
  ok: boolean;
}

export interface LivePublisher {
  /** The latest screencast frame; only the newest one is written, at most every `frameIntervalMs`. */
  frame(jpeg: Buffer, url: string): void;
  /** A step was recorded (or an attempt failed): the viewers' list grows. */
  step(step: LiveStep): void;
  /** Stops writing and deletes the row: frames are not kept once the browser is gone. */
  close(): Promise<void>;
}

export interface LiveOptions {
  /** Throttle: the most frames a second a session writes is 1000 / this (default 250 ms: 4 fps). */
  frameIntervalMs?: number;
  /**
   * Write frames only while a viewer polls (a run's tests may run by the hundred); a burn-in writes them always,
   * so a page opened before it starts shows the first frame at once.
   */
  onlyWhenWatched?: boolean;
  /** Asked before a frame is written: true drops it (the page shows a secret); viewers keep the last frame shown. */
  hideFrame?: () => Promise<boolean>;
  /**
   * With `onlyWhenWatched`: told when a viewer starts or stops watching, so the screencast runs only then (Chromium
   * encoding frames nobody sees cost about 0.18 s of CPU a test).
   */
  onWatchChange?: (watched: boolean) => void;
}

// A viewer's poll marks the row watched; a viewer gone this long stops the frames.
const watchWindowMs = 5_000;
// Unwatched, the publisher asks this often whether someone started watching.
const watchCheckMs = 1_000;
// A row nothing wrote to for this long was left by a worker that died; the next session to open deletes it.
const staleAfterMs = 60 * 60_000;
// Viewers poll every 250 ms: steps written just before the end stay this long, so the last one reaches them.
const lastStepsLingerMs = 600;

/**
 * Opens the live session of a burn-in or a run's test. Writing never fails the work it shows: a failed write is
 * logged and the next frame tries again.
 */
export async function openLiveView(
  { db }: ServiceContext,
  key: LiveRowKey,
  logger: Logger,
  opts: LiveOptions = {},
): Promise<LivePublisher> {
  const interval = opts.frameIntervalMs ?? 250;
  await openLiveRow(db, key, staleAfterMs);
  let watched = !opts.onlyWhenWatched;
  let lastCheck = Date.now();
  let pendingFrame: { jpeg: Buffer; url: string } | undefined;
  const steps: LiveStep[] = [];
  let stepsDirty = false;
  let lastFrameAt = 0;
  let stepsWrittenAt = 0;
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const write = async () => {
    let frame = watched ? pendingFrame : undefined;
    if (frame && opts.hideFrame && (await opts.hideFrame().catch(() => true))) {
      pendingFrame = pendingFrame === frame ? undefined : pendingFrame;
      frame = undefined;
    }
    const now = Date.now();
    const checkWatch = !!opts.onlyWhenWatched && now - lastCheck >= watchCheckMs;
    if (!frame && !stepsDirty && !checkWatch) return;
    pendingFrame = frame ? undefined : pendingFrame;
    const update = { ...(frame && { frame }), ...(stepsDirty && { steps: [...steps] }) };
    if (stepsDirty) stepsWrittenAt = now;
    stepsDirty = false;
    if (frame) lastFrameAt = now;
    try {
      const seen = await updateLiveRow(db, key, update, new Date(now - watchWindowMs));
      lastCheck = now;
      if (opts.onlyWhenWatched && seen !== undefined && seen !== watched) {
        watched = seen;
        opts.onWatchChange?.(seen);
      }
    } catch (err) {
      logger.warn('live view: write failed', { kind: key.kind, subjectId: key.subjectId, error: String(err) });
    }
  };

  // One write at a time; frames that arrive meanwhile replace each other, the newest is written next.
  const schedule = () => {
    if (closed || writing || timer) return;
    const wait =
      pendingFrame && watched ? Math.max(0, lastFrameAt + interval - Date.now()) : stepsDirty ? 0 : watchCheckMs;
    timer = setTimeout(() => {
      timer = undefined;
      writing = write().finally(() => {
        writing = undefined;
        // Unwatched there may be no frames at all (the screencast waits for a viewer): the watch is still checked.
        if (pendingFrame || stepsDirty || opts.onlyWhenWatched) schedule();
      });
    }, wait);
  };

  if (opts.onlyWhenWatched) schedule();
  return {
    frame(jpeg, url) {
      if (closed) return;
      pendingFrame = { jpeg, url };
      schedule();
    },
    step(step) {
      if (closed) return;
      steps.push(step);
      stepsDirty = true;
      schedule();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await writing;
      if (stepsDirty) await write();
      const linger = stepsWrittenAt + lastStepsLingerMs - Date.now();
      if (watched && linger > 0) await new Promise((resolve) => setTimeout(resolve, linger));
      await deleteLiveRow(db, key).catch((err: unknown) =>
        logger.warn('live view: delete failed', { kind: key.kind, subjectId: key.subjectId, error: String(err) }),
      );
    },
  };
}
