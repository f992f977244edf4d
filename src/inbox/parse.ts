export interface ParsedMail {
  from: string;
  subject: string;
  text: string;
  html: string;
}

/** The parts of a raw message Proctor keeps: sender, subject and the text and HTML bodies (attachments dropped). */
export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  // Loaded on the first mail: mailparser and its MIME libraries are about 0.2 CPU-s to import, which every API and
  // worker process (and every test process) paid whether or not a mail ever arrived.
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  return {
    from: mail.from?.text ?? '',
    subject: mail.subject ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
  };
}
