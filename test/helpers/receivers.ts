import { handled } from './handled.js';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP receiver (a Slack-style or generic webhook) that fails its first `failures` requests. */
export async function startReceiver(
  failures = 0,
): Promise<{ url: string; received: Received[]; attempts: () => number; stop(): Promise<void> }> {
  const received: Received[] = [];
  let attempts = 0;
  let left = failures;
  const server = createServer(
    handled(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      attempts++;
      if (left > 0) {
        left--;
        res.writeHead(503).end('busy');
        return;
      }
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    attempts: () => attempts,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
  user: string | null;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
export async function startSmtp(): Promise<{
  port: number;
  mails: Mail[];
  /** Every AUTH attempt's user name: a password sent over plaintext shows here. */
  auths: string[];
  stop(): Promise<void>;
}> {
  const mails: Mail[] = [];
  const auths: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      auths.push(auth.username ?? '');
      if (auth.username === 'mailer' && auth.password === 'smtp-pass-9876')
        cb(null, { user: auth.username });
      else cb(new Error('Invalid credentials'));
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (c) => (raw += c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          user: (session.user as string | undefined) ?? null,
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    auths,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}

/** Subject and body of a received mail, decoded (RFC 2047 encoded words, quoted-printable body). */
export function decodeMail(raw: string): { subject: string; text: string } {
  const qp = (s: string) =>
    Buffer.from(
      s
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, h: string) => `%${h}`)
        .split(/(%[0-9A-F]{2})/)
        .map((p) => (p.startsWith('%') ? String.fromCharCode(parseInt(p.slice(1), 16)) : p))
        .join(''),
      'latin1',
    ).toString('utf8');
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const unfolded = head!.replace(/\r?\n[ \t]+/g, ' ');
  const subjectLine = /^Subject: (.*)$/m.exec(unfolded)?.[1] ?? '';
  const subject = subjectLine.replace(/=\?UTF-8\?Q\?([^?]*)\?=\s*/gi, (_m, w: string) =>
    qp(w.replace(/_/g, ' ')),
  );
  const body = rest.join('\n\n');
  return { subject, text: /quoted-printable/i.test(head!) ? qp(body) : body };
}
