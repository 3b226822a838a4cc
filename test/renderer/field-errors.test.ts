import { describe, expect, it } from 'vitest';
import { labelOf, settingFor, titleOf } from '../../renderer/src/ui/fieldErrorWords.js';

/** How an engine error's details are said on screen: at a field by its label, or with a link. */
describe('field errors in the screen words', () => {
  const fields = { prompt: 'Situation', 'credentials.websocket_url': 'Audio WebSocket URL' };

  it('finds the field on screen that shows a problem, by path or inside it', () => {
    expect(labelOf(fields, 'prompt')).toBe('Situation');
    expect(labelOf(fields, 'credentials.websocket_url')).toBe('Audio WebSocket URL');
    expect(labelOf({ voice: 'Voice' }, 'voice.speed')).toBe('Voice');
    expect(labelOf(fields, 'promptVariables')).toBeNull();
    expect(labelOf(undefined, 'prompt')).toBeNull();
  });

  it('links a refusal to the setting that fixes it', () => {
    expect(
      settingFor({
        path: 'settings.llm.judge',
        message: 'an llm_judge metric needs a language model for the judge role',
      }),
    ).toEqual({ route: 'settings/models', name: 'Settings → Language models' });
    expect(
      settingFor({
        path: 'audio.enabled',
        message:
          'its audio line carries no text, so its words need speech-to-text: set settings.speech.stt (PATCH /v1/settings)',
      })?.route,
    ).toBe('settings/speech');
    expect(settingFor({ path: 'name', message: 'is required' })).toBeNull();
  });

  it('keeps the opening words of a message that lists its details, never the paths', () => {
    const problems = [{ path: 'settings.llm.caller', message: 'no model' }];
    expect(titleOf('Nothing can run: settings.llm.caller: no model', problems)).toBe(
      'Nothing can run',
    );
    expect(titleOf('prompt: is required', [{ path: 'prompt', message: 'is required' }])).toBe(
      'Not saved',
    );
    expect(
      titleOf("Unknown provider 'x': supported are vapi", [
        { path: 'provider', message: 'must be one of: vapi' },
      ]),
    ).toBe("Unknown provider 'x': supported are vapi");
  });
});
