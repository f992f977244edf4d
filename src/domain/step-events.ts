// What a step does besides acting on its element: the dialogs it answers, the tab it opens, the file it
// downloads. Recorded at burn-in from what happened, checked at replay: pure data, shared with workflows and the API.

export const dialogTypes = ['alert', 'confirm', 'prompt', 'beforeunload'] as const;
export type DialogType = (typeof dialogTypes)[number];

/** One dialog the step opened and how it was answered (in the order they opened). */
export interface StepDialog {
  type: DialogType;
  /** The dialog's message as recorded: replay fails when the page says something else. */
  message: string;
  accept: boolean;
  /** The answer typed into a prompt (accepted prompts only). */
  promptText?: string;
}

/** What a downloaded file must be for the step to pass. */
export interface StepDownload {
  /** A regular expression (source) the suggested file name must match, e.g. `^invoice-\d+\.pdf$`. */
  fileNamePattern: string;
  minBytes: number;
  maxBytes: number;
  /** The content type read from the bytes (`pdf`, `png`, `csv`...), not from the server's header. */
  type: string;
}

/** The answer the agent gave for the next dialog (the `handle_dialog` tool). */
export interface DialogAnswer {
  accept: boolean;
  promptText?: string;
}

/** A file a run's step downloaded (and checked), kept in the blob store beside the trace. */
export interface RunDownload {
  /** 0-based index of the step that downloaded it. */
  stepIndex: number;
  fileName: string;
  size: number;
  type: string;
  /** Blob key; the API answers a presigned link instead. */
  key: string;
}
