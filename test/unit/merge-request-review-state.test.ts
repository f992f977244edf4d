import { describe, expect, it } from 'vitest';
import type { MergeRequestRef } from '../../src/domain/git.js';
import { TrackedMergeRequest } from '../../workflows/merge-request-review-state.js';
import type { MergeRequestEvent } from '../../workflows/merge-request-review-contract.js';
import { headAt as head, reviewSettings as settings } from '../support/merge-request-heads.js';

// The mergeRequestReview workflow's state and decisions, outside a workflow: the harness test drives the same
// paths through signals; this covers the decision table and the continue-as-new carry directly.

const ref: MergeRequestRef = { provider: 'github', repository: 'acme/shop', number: 7 };
const opened = (deliveryId: string): MergeRequestEvent => ({ type: 'opened', deliveryId, head: head('aaa') });

describe('TrackedMergeRequest', () => {
  it('queues each delivery once', () => {
    const mr = new TrackedMergeRequest(ref, undefined);
    mr.receive(opened('d1'));
    mr.receive(opened('d1'));
    mr.receive(opened('d2'));
    expect(mr.pending.map((e) => e.deliveryId)).toEqual(['d1', 'd2']);
  });

  it('waits (commenting once per head) until the mapped environment is deployed, then reviews on the last delivery', () => {
    const mr = new TrackedMergeRequest(ref, undefined);
    const h = head('aaa');
    expect(mr.moveHead(h)).toBe(true);
    mr.lastDelivery = { deliveryId: 'd1', event: 'opened' };
    expect(mr.decide(h, settings)).toEqual({
      show: { state: 'waiting', waitingFor: ['preview', 'or a comment mentioning @proctor with a URL'] },
      waitingComment: { waitingFor: ['preview', 'or a comment mentioning @proctor with a URL'], handle: '@proctor' },
    });
    mr.waitingShownFor = h.sha;
    expect(mr.decide(h, settings)).not.toHaveProperty('waitingComment');
    mr.deployed({
      type: 'deployment',
      deliveryId: 'd2',
      sha: 'aaa',
      environment: 'preview',
      url: 'https://aaa.preview.test',
    });
    expect(mr.decide(h, settings)).toEqual({ start: { deliveryId: 'd1', event: 'opened' } });
    expect(mr.decide(h, { ...settings, autoRun: false })).toMatchObject({
      show: { state: 'waiting', waitingFor: ['a comment mentioning @proctor with a URL'] },
    });
  });

  it('skips drafts and repositories without settings; a manual trigger reviews a reviewed head again', () => {
    const mr = new TrackedMergeRequest(ref, undefined);
    expect(mr.decide(head('aaa', true), settings)).toEqual({
      show: { state: 'skipped-draft', waitingFor: ['ready for review'] },
    });
    expect(mr.decide(head('aaa'), null)).toEqual({
      show: { state: 'idle', waitingFor: ['review settings for this repository'] },
    });
    const run = { sha: head('aaa').sha, scope: undefined as never };
    mr.moveHead(head('aaa'));
    mr.reviewStarted(run);
    mr.reviewFinished(run);
    expect(mr.reviewedSha).toBe(run.sha);
    expect(mr.decide(head('aaa'), settings)).toEqual({ show: { state: 'reviewed', waitingFor: [] } });
    mr.manual = { deliveryId: 'd3', event: 'mention', url: 'https://x.test', commentId: 'c1' };
    expect(mr.decide(head('aaa'), settings)).toEqual({ start: mr.manual });
  });

  it('a new head supersedes the running review and clears a manual trigger', () => {
    const mr = new TrackedMergeRequest(ref, undefined);
    mr.moveHead(head('aaa'));
    mr.reviewStarted({ sha: head('aaa').sha, scope: undefined as never });
    expect(mr.superseded()).toBe(false);
    mr.manual = { deliveryId: 'd3', event: 'mention', url: 'https://x.test', commentId: 'c1' };
    expect(mr.moveHead(head('aaa'))).toBe(false);
    expect(mr.manual).not.toBeNull();
    expect(mr.moveHead(head('bbb'))).toBe(true);
    expect(mr.manual).toBeNull();
    expect(mr.superseded()).toBe(true);
  });

  it('carries its state over a continue-as-new', () => {
    const mr = new TrackedMergeRequest(ref, undefined);
    mr.receive(opened('d1'));
    mr.moveHead(head('aaa'));
    mr.deployments = { preview: 'https://aaa.preview.test' };
    mr.waitingShownFor = head('aaa').sha;
    const next = new TrackedMergeRequest(ref, JSON.parse(JSON.stringify(mr.carry())));
    expect(next.carry()).toEqual(mr.carry());
    next.receive(opened('d1'));
    expect(next.pending).toHaveLength(1);
    expect(next.show({})).toBe(`**starting** · acme/shop #7 · head ${head('aaa').sha.slice(0, 12)}`);
  });
});
