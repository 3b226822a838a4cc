import { defaultNoiseDir, loadNoiseBed } from '../../src/audio/noise-beds.js';
import { mulawEncode } from '../../src/audio/pcm.js';
import { conditionsOnCall, simulationLine } from '../../src/voice/caller-conditions.js';
import { LiveCall } from '../../src/voice/live-call.js';
import type { AudioCall } from '../../src/voice/transport.js';

/**
 * The CPU that noise mixing and a mobile line add to 20 live calls, apart from everything else a
 * call does: the calls' frame loops alone (8 kHz, each frame mu-law encoded as the Twilio
 * transport does), clean and impaired in turns, `rounds` times each for `seconds`.
 */
export async function impairmentCost(rounds: number, seconds: number) {
  const bed = await loadNoiseBed(defaultNoiseDir(), 'car');
  const cores = { clean: 0, impaired: 0 };
  for (let r = 0; r < rounds; r++) {
    cores.clean += await framesAlone(false, bed, seconds);
    cores.impaired += await framesAlone(true, bed, seconds);
  }
  return { clean: cores.clean / rounds, impaired: cores.impaired / rounds };
}

/** Cores used by 20 calls' frame loops over `seconds`. */
async function framesAlone(impaired: boolean, bed: Int16Array, seconds: number) {
  const calls = Array.from({ length: 20 }, (_, i) => {
    const call: AudioCall = {
      sampleRate: 8000,
      agentTextSource: 'stt',
      callId: null,
      send: (frame) => void mulawEncode(frame),
      hangup: () => Promise.resolve(),
      providerTranscript: () => Promise.resolve(null),
    };
    const conditions = {
      line: simulationLine(impaired ? 'mobile' : 'studio', i),
      noise: impaired ? { bed: 'car', snrDb: 30 } : { bed: 'none', snrDb: null },
      behaviours: null,
    };
    const parts = conditionsOnCall(conditions, impaired ? bed : null, 8000);
    return new LiveCall(call, {
      maxMs: (seconds + 5) * 1000,
      keepAgentAudio: false,
      onFrame: () => undefined,
      onAgentTurnEnd: () => undefined,
      onEnded: () => undefined,
      noise: parts.noise,
      line: parts.line,
    });
  });
  const before = process.cpuUsage();
  for (const c of calls) c.start();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  for (const c of calls) c.stop();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6 / seconds;
}
