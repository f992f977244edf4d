// What reading a mail's one-time code costs (src/domain/mail-code.ts): the realistic auth mails of the unit matrix,
// and mails of the inbox's largest size (10 MiB) built to make the reader work (every token a code candidate, every
// line alone, one endless line, HTML). The reader stops after 200,000 characters and 200 candidates, so a huge mail
// costs about what its first part does. Median of the runs, in milliseconds per mail.
//
//   node --import tsx bench/mail-code.ts
//   BENCH_ITERATIONS=20   runs per row (default 10), after one warm-up.
import { extractCode, mailCode } from '../src/domain/inbox.js';
import { authMails } from '../test/support/auth-mails.js';
import { envInt, median, table } from './support.js';

const iterations = envInt('BENCH_ITERATIONS', 10);

function measure(run: () => unknown, perRun = 1): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    run();
    times.push((performance.now() - start) / perRun);
  }
  return median(times);
}

const huge = 10 * 1024 * 1024;
const repeat = (unit: string) => unit.repeat(Math.ceil(huge / unit.length));
const everyTokenACode = repeat('code 123456 ');
const oneLongLine = repeat('CODE ABCDEFGH ');
const everyLineAlone = repeat('123456\n');
const htmlOnly = { text: '', html: repeat('<p>code 482913</p>') };
const rows: Array<[string, number]> = [
  [
    `auth mails of the unit matrix (${authMails.length}), per mail`,
    measure(() => authMails.forEach((m) => mailCode(m)), authMails.length),
  ],
  ['10 MiB text: "code 123456 " over and over', measure(() => extractCode(everyTokenACode))],
  ['10 MiB text: one line of "CODE ABCDEFGH "', measure(() => extractCode(oneLongLine))],
  ['10 MiB text: "123456" alone on every line', measure(() => extractCode(everyLineAlone))],
  ['10 MiB HTML only: <p>code 482913</p> over and over', measure(() => mailCode(htmlOnly))],
];
console.log(
  table(
    ['mail', 'median ms'],
    rows.map(([name, ms]) => [name, ms.toFixed(3)]),
  ),
);
