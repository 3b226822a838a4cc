import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeSpeech } from './fake-speech.js';
import { startFakeVoice } from './fake-voice.js';
import type { BrainOptions } from './fake-voice-brain.js';

/**
 * The far side of the voice bench, in a process of its own so that its work (every call's VAD,
 * paced answers, mu-law, speech-to-text requests) never shares the engine's event loop: the
 * engine's pacing is then measured alone. One fake Twilio Media Streams agent answering every
 * caller line DELAY_MS after it ends, a fake STT server, and `GET /truth`: what each call's brain
 * recorded (its `brains`), on its own clock. Prints {delayMs, mediaStreamUrl, agentUrl, sttUrl,
 * truthUrl} as one JSON line, and runs until killed.
 */
const DELAY_MS = 700;
const AGENT_REPLIES = [
  'Your order ships tomorrow morning.',
  'I can see the refund was approved last week.',
  'Sure, I have updated the address for you.',
];
/** Every transcription answers this; the fake STT answers from a list, so the list is long. */
const TRANSCRIPTS = 20_000;

/**
 * argv[2]: the brain's options over these defaults, e.g. {"hearingDbfs": -35} for callers over
 * background noise (the agent hears over it).
 */
const options = JSON.parse(process.argv[2] ?? '{}') as Partial<BrainOptions>;
const voice = await startFakeVoice({ delayMs: DELAY_MS, replies: AGENT_REPLIES, ...options });
const speech = await startFakeSpeech();
for (let i = 0; i < TRANSCRIPTS; i++) speech.transcripts.push(AGENT_REPLIES[0]!);

const control = createServer((req, res) => {
  if (req.url !== '/truth') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(voice.brains));
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

process.on('SIGTERM', () => {
  control.close();
  void Promise.all([voice.stop(), speech.stop()]).then(() => process.exit(0));
});
console.log(
  JSON.stringify({
    delayMs: options.delayMs ?? DELAY_MS,
    mediaStreamUrl: voice.mediaStreamUrl,
    agentUrl: `${voice.url}/chat`,
    sttUrl: `${speech.url}/v1`,
    truthUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}/truth`,
  }),
);
