import { describe, expect, it } from 'vitest';
import { normalizeEnglish, normalizeWithKinds } from '../../src/text/normalize-english.js';
import { sumWordErrors, wordErrors } from '../../src/voice/word-errors.js';

const words = (text: string) => normalizeEnglish(text).join(' ');

describe('normalising English for word error rate', () => {
  it('lowercases and drops punctuation', () => {
    expect(words('Hello, World! How are you?')).toBe('hello world how are you');
    expect(words('"Yes" — she said… (quietly)')).toBe('yes she said');
  });

  it('drops fillers and bracketed asides', () => {
    expect(words('Um, so uh [noise] I mean, hmm, mhm <unk> yes (laughs) mm')).toBe('so i mean yes');
  });

  it('expands contractions, keeps possessives joined', () => {
    expect(words("I can't, I won't, I'm sure it's fine")).toBe(
      'i can not i will not i am sure it is fine',
    );
    expect(words("you're late, we've gone, she'll go, he'd know, didn't")).toBe(
      'you are late we have gone she will go he would know did not',
    );
    expect(words("Jane's car, the parents' house, John's been")).toBe(
      'janes car the parents house john has been',
    );
    expect(words('I cannot, it’s fine')).toBe('i can not it is fine');
  });

  it('writes British spellings the American way, and a few variants one way', () => {
    expect(words('The colour of the centre; cancelled, travelling')).toBe(
      'the color of the center canceled traveling',
    );
    expect(words('OK, alright, Mr. Smith')).toBe('okay all right mister smith');
  });

  it('writes spelled numbers as digits', () => {
    expect(words('twenty one')).toBe('21');
    expect(words('twenty-one')).toBe('21');
    expect(words('one hundred and five')).toBe('105');
    expect(words('two thousand twenty six')).toBe('2026');
    expect(words('a hundred and fifty thousand')).toBe('150000');
    expect(words('three point five')).toBe('3.5');
    expect(words('four oh two')).toBe('402');
    expect(words('oh I see')).toBe('oh i see');
  });

  it('writes digit strings without grouping commas', () => {
    expect(words('1,000 people and 2,500,000 more')).toBe('1000 people and 2500000 more');
    expect(words('one thousand people')).toBe('1000 people');
    expect(words('1.5 million')).toBe('1500000');
  });

  it('writes ordinals as digits with their suffix', () => {
    expect(words('first, 1st')).toBe('1st 1st');
    expect(words('the twenty first')).toBe('the 21st');
    expect(words('on the third of May')).toBe('on the 3rd of may');
    // "second" is an ordinal only where it cannot be the unit of time.
    expect(words('May second, the second floor, wait a second')).toBe(
      'may 2nd the 2nd floor wait a second',
    );
  });

  it('writes money and percentages one way', () => {
    expect(words('$20')).toBe('$20');
    expect(words('twenty dollars')).toBe('$20');
    expect(words('20 bucks')).toBe('$20');
    expect(words('twenty dollars and fifty cents')).toBe('$20.50');
    expect(words('$1,250.50')).toBe('$1250.50');
    expect(words('fifty cents, 50¢')).toBe('¢50 ¢50');
    expect(words('20%, twenty percent, 20 per cent')).toBe('20% 20% 20%');
  });

  it('joins a phone number however it is written', () => {
    const expected = ['4155550100'];
    expect(normalizeEnglish('415 555 0100')).toEqual(expected);
    expect(normalizeEnglish('four one five five five five zero one zero zero')).toEqual(expected);
    expect(normalizeEnglish('415-555-0100')).toEqual(expected);
    expect(normalizeEnglish('(415) 555-0100')).toEqual(expected);
    expect(normalizeEnglish('four one five, double five five, oh one oh oh')).toEqual(expected);
  });

  it('reads times and years the same spoken or written', () => {
    expect(words('at 3:30pm')).toBe(words('at three thirty p.m.'));
    expect(words('in 1984')).toBe(words('in nineteen eighty four'));
  });

  it('marks numbers, and names capitalised mid-sentence or written as codes', () => {
    expect(normalizeWithKinds('Yes. My name is Jane Doe, code ABC123, twenty five')).toEqual([
      { word: 'yes', kind: 'word' },
      { word: 'my', kind: 'word' },
      { word: 'name', kind: 'word' },
      { word: 'is', kind: 'word' },
      { word: 'jane', kind: 'name' },
      { word: 'doe', kind: 'name' },
      { word: 'code', kind: 'word' },
      { word: 'abc123', kind: 'name' },
      { word: '25', kind: 'number' },
    ]);
  });

  it('takes no name from "I", titles, the first word of a sentence or an all-caps text', () => {
    const kinds = (text: string) => normalizeWithKinds(text).map((token) => token.kind);
    expect(kinds("Sure. I'm with Mr. Smith")).toEqual([
      'word',
      'word',
      'word',
      'word',
      'word',
      'name',
    ]);
    expect(kinds('I SAID NO')).toEqual(['word', 'word', 'word']);
  });
});

describe('word error rate of what was heard against what was said', () => {
  it('is 0 for the same words, whatever the writing', () => {
    const errors = wordErrors(
      "I can't make it on the 21st.",
      'i cannot make it on the twenty first',
    );
    expect(errors).toEqual({
      words: 8,
      substitutions: 0,
      deletions: 0,
      insertions: 0,
      wer: 0,
      misheard: [],
    });
  });

  it('counts one substitution in four words as 0.25', () => {
    const errors = wordErrors('the cat sat down', 'the hat sat down');
    expect(errors).toMatchObject({ words: 4, substitutions: 1, deletions: 0, insertions: 0 });
    expect(errors.wer).toBe(0.25);
  });

  it('counts insertions and deletions, rounding to 4 decimals', () => {
    expect(wordErrors('please call me back', 'please call me right back')).toMatchObject({
      insertions: 1,
      deletions: 0,
      wer: 0.25,
    });
    expect(wordErrors('yes that is right', 'yes right')).toMatchObject({
      deletions: 2,
      substitutions: 0,
      wer: 0.5,
    });
    expect(wordErrors('one of three', 'won of')).toMatchObject({ words: 3, wer: 0.6667 });
  });

  it('is 1 when nothing was heard, and null when nothing was said', () => {
    expect(wordErrors('hello there', '')).toMatchObject({ words: 2, deletions: 2, wer: 1 });
    expect(wordErrors('', 'hello')).toMatchObject({ words: 0, insertions: 1, wer: null });
    expect(wordErrors('um', '')).toMatchObject({ words: 0, wer: null });
  });

  it('lists the names and numbers that were misheard or missed', () => {
    const errors = wordErrors(
      'My name is Jane Doe and my booking is 4 1 5 2',
      'my name is jane dough and my booking is 4 1 5 3',
    );
    expect(errors.misheard).toEqual([
      { said: 'doe', heard: 'dough', kind: 'name' },
      { said: '4152', heard: '4153', kind: 'number' },
    ]);
    expect(errors.substitutions).toBe(2);
    expect(errors.wer).toBe(0.2);
  });

  it('lists a missed name with nothing heard, and not ordinary words', () => {
    const errors = wordErrors('I spoke with Priya yesterday', 'i spoke with yesterday please');
    expect(errors.misheard).toEqual([{ said: 'priya', heard: null, kind: 'name' }]);
    expect(errors).toMatchObject({ deletions: 1, insertions: 1, wer: 0.4 });
  });

  it('aligns long turns', () => {
    const said = Array.from({ length: 400 }, (_, i) => `word${i % 7}x`).join(' ');
    const heard = said.replace('word3x', 'other');
    expect(wordErrors(said, heard)).toMatchObject({ words: 400, substitutions: 1, wer: 0.0025 });
  });
});

describe('word error rate of a whole call', () => {
  it('sums edits over summed words rather than averaging the turns', () => {
    const short = wordErrors('yes', 'no');
    const long = wordErrors('i would like to book a table', 'i would like to book a table');
    const total = sumWordErrors([short, long]);
    // The mean of the turns would be 0.5; one error in eight words is 0.125.
    expect(total).toMatchObject({ words: 8, substitutions: 1, wer: 0.125 });
  });

  it('concatenates what was misheard, and counts insertions of turns with nothing said', () => {
    const total = sumWordErrors([
      wordErrors('Call Anna', 'call hannah'),
      wordErrors('', 'hello'),
      wordErrors('room 12', 'room 13'),
    ]);
    expect(total.misheard).toEqual([
      { said: 'anna', heard: 'hannah', kind: 'name' },
      { said: '12', heard: '13', kind: 'number' },
    ]);
    expect(total).toMatchObject({ words: 4, substitutions: 2, insertions: 1, wer: 0.75 });
  });

  it('has no rate for no turns', () => {
    expect(sumWordErrors([])).toEqual({
      words: 0,
      substitutions: 0,
      deletions: 0,
      insertions: 0,
      wer: null,
      misheard: [],
    });
  });
});
