/**
 * Which transport carries an audio call for an agent of each provider, and why none does for
 * the ones refused.
 */
import type { Dial } from '../transport.js';
import { dialBland } from './bland.js';
import { dialElevenLabs } from './elevenlabs.js';
import { dialDemo, dialTwilio } from './twilio.js';
import { dialVapi } from './vapi.js';

export const RETELL_AUDIO_REFUSED =
  "Retell agents cannot take audio simulations: Retell's audio runs on WebRTC, in a LiveKit room " +
  'the caller joins with a short-lived token, not on a socket Callbench can stream to; joining ' +
  "from Node needs LiveKit's native, developer-preview SDK and a LiveKit server to test it " +
  'against, which Callbench does not ship. Run Retell agents in text mode.';

/**
 * A transport, the PCM rate its calls run at (known before dialling), whether it is experimental,
 * and whether it carries keypad digits as events (else they go in-band as tones).
 */
export type DialerChoice =
  | { dial: Dial; sampleRate: number; experimental: boolean; dtmfEvents: boolean }
  | { refused: string };

export function dialerFor(provider: string): DialerChoice {
  switch (provider) {
    case 'vapi':
      return { dial: dialVapi, sampleRate: 16_000, experimental: false, dtmfEvents: false };
    case 'elevenlabs':
      return { dial: dialElevenLabs, sampleRate: 16_000, experimental: false, dtmfEvents: false };
    case 'bland':
      // Its socket protocol is undocumented, read from its browser SDK.
      return { dial: dialBland, sampleRate: 16_000, experimental: true, dtmfEvents: false };
    case 'http':
      return { dial: dialTwilio, sampleRate: 8_000, experimental: false, dtmfEvents: true };
    case 'demo':
      return { dial: dialDemo, sampleRate: 8_000, experimental: false, dtmfEvents: true };
    case 'retell':
      return { refused: RETELL_AUDIO_REFUSED };
    default:
      return { refused: `Agents of provider ${provider} cannot take audio simulations.` };
  }
}
