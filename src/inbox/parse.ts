import { simpleParser } from 'mailparser';

export interface ParsedMail {
  from: string;
  subject: string;
  text: string;
  html: string;
}

/** The parts of a raw message Proctor keeps: sender, subject and the text and HTML bodies (attachments dropped). */
export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  return {
    from: mail.from?.text ?? '',
    subject: mail.subject ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
  };
}
