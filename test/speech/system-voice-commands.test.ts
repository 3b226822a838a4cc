import { describe, expect, it } from 'vitest';
import { systemVoiceCommand } from '../../src/speech/system-voice.js';

// Only Linux runs here: macOS and Windows are checked by the commands they would be given.
const TRICKY = `-v "; Remove-Item C:\\ -Recurse; $(whoami) \`n 'quoted'`;

describe('system voice commands', () => {
  it('gives espeak-ng the text as one argument after --', () => {
    const linux = systemVoiceCommand(
      'linux',
      { text: TRICKY, voiceId: null, speed: 1.5 },
      '/x.wav',
    );
    expect(linux).toEqual({
      command: 'espeak-ng',
      args: ['--stdout', '-v', 'en-us', '-s', '263', '--', TRICKY],
      wavFile: null,
    });
  });

  it('has macOS say write 16 kHz PCM16 to the temp file', () => {
    const mac = systemVoiceCommand(
      'darwin',
      { text: TRICKY, voiceId: 'Samantha', speed: 0.5 },
      '/t/s.wav',
    );
    expect(mac).toEqual({
      command: 'say',
      args: [
        '-v',
        'Samantha',
        '-r',
        '88',
        '-o',
        '/t/s.wav',
        '--data-format=LEI16@16000',
        '--',
        TRICKY,
      ],
      wavFile: '/t/s.wav',
    });
  });

  it('hands Windows the text in the environment, never in the script', () => {
    const line = { text: TRICKY, voiceId: 'Microsoft Zira Desktop', speed: 3 };
    const win = systemVoiceCommand('win32', line, 'C:\\t\\s.wav');
    expect(win.command).toBe('powershell.exe');
    const script = Buffer.from(win.args.at(-1)!, 'base64').toString('utf16le');
    expect(win.args.at(-2)).toBe('-EncodedCommand');
    expect(script).toContain('SetOutputToWaveFile($env:CALLBENCH_TTS_OUT');
    expect(script).not.toContain('whoami');
    expect(win.env).toEqual({
      CALLBENCH_TTS_TEXT: Buffer.from(TRICKY, 'utf8').toString('base64'),
      CALLBENCH_TTS_VOICE: 'Microsoft Zira Desktop',
      CALLBENCH_TTS_RATE: '10',
      CALLBENCH_TTS_OUT: 'C:\\t\\s.wav',
    });
    const slow = systemVoiceCommand('win32', { ...line, speed: 0.5 }, 'C:\\t\\s.wav');
    expect(slow.env?.CALLBENCH_TTS_RATE).toBe('-6');
  });
});
