import { raw } from 'hono/html';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

// The assistant's replies and a review's summary are Markdown (lists of tests, **verdicts**, `code`, tables).
// micromark's defaults keep them inert: HTML in the text is shown as text, and a link whose protocol is not
// http(s), mailto, irc(s) or xmpp gets an empty href. Images are turned off (the page's Content-Security-Policy
// would block a remote one anyway, and a model's reply has no business loading anything).
const options = { extensions: [gfm(), { disable: { null: ['labelStartImage'] } }], htmlExtensions: [gfmHtml()] };

/** Markdown as HTML; its headings start at <h4>, under the page's own. */
export function markdownHtml(text: string): string {
  return micromark(text, options).replace(
    /<(\/?)h([1-6])>/g,
    (_, slash: string, level: string) => `<${slash}h${Math.min(6, Number(level) + 3)}>`,
  );
}

export function Markdown(props: { text: string; class?: string }) {
  return <div class={props.class ? `${props.class} markdown` : 'markdown'}>{raw(markdownHtml(props.text))}</div>;
}
