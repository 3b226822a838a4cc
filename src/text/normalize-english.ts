/**
 * English text normalisation for comparing what the caller said with what a provider's speech
 * recognition heard (word error rate). It follows the spirit of Whisper's EnglishTextNormalizer
 * (lowercase, no bracketed asides or fillers, contractions expanded, American spelling, spelled
 * numbers as digits, no punctuation) so that only differences in *words* count as errors, not
 * differences in how a transcriber chose to write them.
 *
 * Canonical forms (the same whichever way either side wrote it):
 * - money: symbol first, amount in digits: "$20", "twenty dollars", "20 bucks" → "$20";
 *   "twenty dollars and fifty cents" / "$20.50" → "$20.50"; "fifty cents" / "50¢" → "¢50";
 *   pounds "£" and euros "€" likewise.
 * - percent: "20%", "20 percent", "twenty per cent" → "20%".
 * - ordinals: digits with suffix: "first", "1st" → "1st"; "twenty first" → "21st". "second" is an
 *   ordinal only where it cannot be the unit of time: after a tens word ("twenty second"), after
 *   "the" or after a month name.
 * - possessives: kept, joined: "Jane's" → "janes", "parents'" → "parents". The contractions of
 *   pronouns and question words with "is" are expanded ("it's" → "it is"), as are "'s been" /
 *   "'d been" (→ "has been" / "had been").
 * - digit runs: consecutive whole numbers are joined into one digit string, so "415 555 0100",
 *   "four one five five five five zero one zero zero" and "415-555-0100" all become "4155550100".
 *   Callers and recognisers write phone, card and booking numbers in every grouping, and a number
 *   read back wrong should count as one error, not as several split differently on each side.
 *   The same join makes "three thirty" and "3:30" both "330", "nineteen eighty four" "1984".
 */

export type TokenKind = 'number' | 'name' | 'word';

export interface NormalizedToken {
  word: string;
  kind: TokenKind;
}

/** The normalised words of the text. */
export function normalizeEnglish(text: string): string[] {
  return normalizeWithKinds(text).map((token) => token.word);
}

/**
 * The normalised words, each marked as a number (it came from digits or number words), a name
 * (capitalised mid-sentence in the original, or an all-caps/letters-and-digits code such as
 * "ABC123") or an ordinary word. Names are only recognised in text that has lowercase letters:
 * a transcript written all in capitals says nothing about names.
 */
export function normalizeWithKinds(text: string): NormalizedToken[] {
  const tokens = expandWords(splitWords(cleanText(text)));
  const pieces = joinDigitRuns(mergeCents(attachUnits(new NumberReader(tokens).read())));
  return pieces.flatMap(({ word, kind }) => {
    const clean = kind === 'number' ? word : word.replace(/[$£€¢%.']/g, '');
    return clean ? [{ word: clean, kind }] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Tables

const FILLERS = new Set(['um', 'umm', 'uh', 'uhh', 'uhm', 'erm', 'hmm', 'hm', 'mm', 'mmm', 'mhm']);

/** Words rewritten as a whole: irregular contractions, colloquial forms, titles, variants. */
const WHOLE_WORDS = new Map<string, string>(
  Object.entries({
    "won't": 'will not',
    "can't": 'can not',
    cannot: 'can not',
    "shan't": 'shall not',
    "ain't": 'aint',
    "let's": 'let us',
    "y'all": 'you all',
    "ma'am": 'madam',
    "'cause": 'because',
    "'em": 'them',
    "'til": 'until',
    gonna: 'going to',
    wanna: 'want to',
    gotta: 'got to',
    gimme: 'give me',
    lemme: 'let me',
    kinda: 'kind of',
    sorta: 'sort of',
    "i'ma": 'i am going to',
    imma: 'i am going to',
    woulda: 'would have',
    coulda: 'could have',
    shoulda: 'should have',
    mr: 'mister',
    mrs: 'missus',
    dr: 'doctor',
    jr: 'junior',
    sr: 'senior',
    ok: 'okay',
    alright: 'all right',
  }),
);

/** Abbreviated titles: capitalised but no names, and their period ends no sentence. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'jr', 'sr', 'st', 'prof']);

/** All-caps words common enough in speech that they are no code or name. */
const COMMON_CAPITALS = new Set(['OK', 'AM', 'PM']);

/** Contraction endings, tried in order after the whole words. */
const SUFFIX_CONTRACTIONS: [string, string][] = [
  ["n't", ' not'],
  ["'re", ' are'],
  ["'ve", ' have'],
  ["'ll", ' will'],
  ["'d", ' would'],
  ["'m", ' am'],
];

/** Words whose "'s" is "is"; on any other word it is a possessive and stays. */
const IS_CONTRACTIONS = new Set('it he she that what there here where who how when why'.split(' '));

/** British spelling/American spelling, the common words of customer calls. */
const SPELLINGS = new Map<string, string>(
  `colour/color colours/colors coloured/colored favour/favor favours/favors favourite/favorite
  favourites/favorites favourable/favorable honour/honor labour/labor neighbour/neighbor
  neighbours/neighbors neighbourhood/neighborhood behaviour/behavior flavour/flavor humour/humor
  rumour/rumor harbour/harbor centre/center centres/centers theatre/theater metre/meter
  metres/meters litre/liter litres/liters kilometre/kilometer kilometres/kilometers fibre/fiber
  cancelled/canceled cancelling/canceling travelled/traveled travelling/traveling
  traveller/traveler travellers/travelers labelled/labeled modelled/modeled fuelled/fueled
  organise/organize organised/organized organising/organizing organisation/organization
  realise/realize realised/realized recognise/recognize recognised/recognized
  apologise/apologize apologised/apologized authorise/authorize authorised/authorized
  authorisation/authorization customise/customize prioritise/prioritize finalise/finalize
  summarise/summarize minimise/minimize analyse/analyze analysed/analyzed licence/license
  defence/defense offence/offense programme/program programmes/programs catalogue/catalog
  dialogue/dialog cheque/check cheques/checks grey/gray tyre/tire tyres/tires
  aluminium/aluminum jewellery/jewelry pyjamas/pajamas enquiry/inquiry enquiries/inquiries
  enrolment/enrollment fulfil/fulfill instalment/installment`
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => pair.split('/') as [string, string]),
);

const ONES = 'zero one two three four five six seven eight nine'.split(' ');
const TEENS =
  'ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = 'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ');
const MULTIPLIERS = new Map([
  ['thousand', 1e3],
  ['million', 1e6],
  ['billion', 1e9],
  ['trillion', 1e12],
]);
const IRREGULAR_ORDINALS = new Map(
  Object.entries({
    first: 'one',
    second: 'two',
    third: 'three',
    fifth: 'five',
    eighth: 'eight',
    ninth: 'nine',
    twelfth: 'twelve',
  }),
);
/** "double five" is "55": how digits are read out in phone and booking numbers. */
const REPEATS = new Map([
  ['double', 2],
  ['triple', 3],
]);
const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(
    ' ',
  ),
);
const CURRENCY_WORDS = new Map(
  Object.entries({
    dollar: '$',
    dollars: '$',
    buck: '$',
    bucks: '$',
    pound: '£',
    pounds: '£',
    quid: '£',
    euro: '€',
    euros: '€',
    cent: '¢',
    cents: '¢',
  }),
);
/** Letters that Unicode decomposition does not reduce to plain ones. */
const SPECIAL_LETTERS = new Map(
  Object.entries({ æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ß: 'ss', ø: 'o', Ø: 'O', ł: 'l', Ł: 'L' }),
);

// ---------------------------------------------------------------------------------------------
// Text to words

/**
 * Typographic apostrophes made plain, accents dropped, asides in brackets removed (but not a
 * parenthesised area code, which is part of a number), grouping commas out of digit strings.
 */
function cleanText(text: string): string {
  return text
    .replace(/[‘’ʼ`´]/g, "'")
    .replace(/[æÆœŒßøØłŁ]/g, (letter) => SPECIAL_LETTERS.get(letter) ?? letter)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[<[][^>\]]*[>\]]/g, ' ')
    .replace(/\(([^)]*)\)/g, (_, inner: string) => (/\p{L}/u.test(inner) ? ' ' : ` ${inner} `))
    .replace(/(\d),(?=\d)/g, '$1')
    .replace(/\s&\s/g, ' and ');
}

interface RawWord {
  /** Lowercased, apostrophes still in. */
  text: string;
  nameLike: boolean;
}

/** Anything but letters, digits and the characters numbers and contractions are written with. */
const WORD_BREAK = /[^\p{L}\p{N}'.$£€¢%]+/u;

/** The words of the text, each noted whether it looked like a name where it stood. */
function splitWords(text: string): RawWord[] {
  const hasCase = /\p{Ll}/u.test(text);
  const words: RawWord[] = [];
  let sentenceStart = true;
  for (const chunk of text.split(/\s+/)) {
    const parts = chunk.split(WORD_BREAK).flatMap(splitPart);
    parts.forEach((part, index) => {
      const sentenceInitial = sentenceStart && index === 0;
      words.push({
        text: part.toLowerCase(),
        nameLike: looksLikeName(part, sentenceInitial, hasCase),
      });
    });
    if (endsSentence(chunk)) sentenceStart = true;
    else if (parts.length > 0) sentenceStart = false;
  }
  return words;
}

/** Periods out except a decimal point; "5pm" apart so it reads as "5 pm" does. */
function splitPart(part: string): string[] {
  const cleaned = part.replace(/(?<!\d)\.|\.(?!\d)/g, '');
  const time = /^(\d+)([ap]m)$/i.exec(cleaned);
  if (time) return [time[1]!, time[2]!];
  return cleaned ? [cleaned] : [];
}

function endsSentence(chunk: string): boolean {
  const word = chunk.replace(/[^\p{L}]/gu, '').toLowerCase();
  return /[.!?]["')\]]*$/.test(chunk) && !TITLES.has(word);
}

/**
 * A name: capitalised where a sentence does not start (and not "I" or a title), or a code: all
 * capitals, or letters and digits mixed ("ABC123", "4B"), but no ordinal ("21st") or decade
 * ("1990s").
 */
function looksLikeName(part: string, sentenceInitial: boolean, hasCase: boolean): boolean {
  const base = part.replace(/^'+/, '').replace(/'.*$/s, '');
  if (/\d/.test(base) && /\p{L}/u.test(base)) return !/^\d+(st|nd|rd|th|s)$/i.test(base);
  if (!hasCase || base === 'I' || TITLES.has(base.toLowerCase())) return false;
  if (/^\p{Lu}{2,}$/u.test(base)) return !COMMON_CAPITALS.has(base);
  return !sentenceInitial && /^\p{Lu}/u.test(base);
}

// ---------------------------------------------------------------------------------------------
// Contractions, fillers, spelling

function expandWords(words: RawWord[]): NormalizedToken[] {
  return words.flatMap((raw, i) => {
    if (FILLERS.has(raw.text)) return [];
    const trimmed = raw.text.replace(/^'+|'+$/g, '');
    const fromTable = WHOLE_WORDS.has(raw.text) || WHOLE_WORDS.has(trimmed);
    const expanded = expandContraction(raw.text, trimmed, words[i + 1]?.text);
    return expanded
      .split(' ')
      .filter(Boolean)
      .map((word, index): NormalizedToken => {
        const name = index === 0 && raw.nameLike && !fromTable;
        return { word: SPELLINGS.get(word) ?? word, kind: name ? 'name' : 'word' };
      });
  });
}

/** The word with its contraction spelled out; possessives lose only the apostrophe. */
function expandContraction(word: string, trimmed: string, next: string | undefined): string {
  const whole = WHOLE_WORDS.get(word) ?? WHOLE_WORDS.get(trimmed);
  if (whole !== undefined) return whole;
  const perfect = /^(.+)'([sd])$/.exec(trimmed);
  if (perfect && next === 'been') return `${perfect[1]} ${perfect[2] === 's' ? 'has' : 'had'}`;
  for (const [suffix, expansion] of SUFFIX_CONTRACTIONS) {
    if (trimmed.endsWith(suffix) && trimmed.length > suffix.length) {
      return trimmed.slice(0, -suffix.length) + expansion;
    }
  }
  const base = trimmed.slice(0, -2);
  if (trimmed.endsWith("'s") && IS_CONTRACTIONS.has(base)) return `${base} is`;
  return trimmed.replace(/'/g, '');
}

// ---------------------------------------------------------------------------------------------
// Numbers

type NumberForm = 'integer' | 'decimal' | 'ordinal' | 'money' | 'percent';

/** A token on its way out; numbers carry their form, which decides what they combine with. */
interface Piece extends NormalizedToken {
  form?: NumberForm;
}

const numberPiece = (word: string, form: NumberForm): Piece => ({ word, kind: 'number', form });

type Slot = 'ones' | 'teens' | 'tens' | 'hundred' | 'multiplier';

interface SpelledNumber {
  slot: Slot;
  value: number;
}

/** A spelled number being read: completed thousands/millions plus the group below 1000. */
interface Reading {
  total: number;
  group: number;
  /** What the last word was; "tensOnes" is a ones word completing a tens word. */
  slot: Slot | 'tensOnes';
  /** The smallest multiplier used so far: the next must be smaller. */
  multiplier: number;
}

function spelledNumber(word: string): SpelledNumber | undefined {
  if (ONES.includes(word)) return { slot: 'ones', value: ONES.indexOf(word) };
  if (TEENS.includes(word)) return { slot: 'teens', value: 10 + TEENS.indexOf(word) };
  if (TENS.includes(word)) return { slot: 'tens', value: 20 + 10 * TENS.indexOf(word) };
  if (word === 'hundred') return { slot: 'hundred', value: 100 };
  const multiplier = MULTIPLIERS.get(word);
  return multiplier === undefined ? undefined : { slot: 'multiplier', value: multiplier };
}

/** The cardinal word of an ordinal word: "twentieth" → "twenty", "fifth" → "five". */
function cardinalOfOrdinal(word: string): string | undefined {
  const irregular = IRREGULAR_ORDINALS.get(word);
  if (irregular !== undefined) return irregular;
  const tens = word.endsWith('ieth') ? `${word.slice(0, -4)}y` : undefined;
  if (tens !== undefined && TENS.includes(tens)) return tens;
  const regular = word.endsWith('th') ? word.slice(0, -2) : undefined;
  return regular !== undefined && spelledNumber(regular) ? regular : undefined;
}

/** A single digit as said or written: "five", "oh", "5". */
function digitOf(word: string): string | undefined {
  if (ONES.includes(word)) return String(ONES.indexOf(word));
  if (word === 'oh' || word === 'o') return '0';
  return /^\d$/.test(word) ? word : undefined;
}

function ordinalSuffix(n: number): string {
  if (n % 100 >= 11 && n % 100 <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

const startReading = ({ slot, value }: SpelledNumber): Reading =>
  slot === 'multiplier'
    ? { total: value, group: 0, slot, multiplier: value }
    : { total: 0, group: value, slot, multiplier: Infinity };

const afterScale = (r: Reading) => r.slot === 'hundred' || r.slot === 'multiplier';

/** The reading with the next word added, or null when that word starts a new number. */
function extendReading(r: Reading, { slot, value }: SpelledNumber): Reading | null {
  switch (slot) {
    case 'ones':
      if (value === 0) return null;
      if (r.slot === 'tens') return { ...r, group: r.group + value, slot: 'tensOnes' };
      return afterScale(r) ? { ...r, group: r.group + value, slot } : null;
    case 'teens':
    case 'tens':
      return afterScale(r) ? { ...r, group: r.group + value, slot } : null;
    case 'hundred':
      return !afterScale(r) && r.group > 0 && r.group < 100
        ? { ...r, group: r.group * 100, slot }
        : null;
    case 'multiplier':
      return r.group > 0 && value < r.multiplier
        ? { total: r.total + r.group * value, group: 0, slot, multiplier: value }
        : null;
  }
}

/** Parses digit strings as written: "415", "3.5", "415.555.0100", "21st", "$20", "20%". */
function digitPieces(word: string): Piece[] | undefined {
  if (/^\d+$/.test(word)) return [numberPiece(word, 'integer')];
  if (/^\d+\.\d+$/.test(word)) return [numberPiece(word, 'decimal')];
  if (/^\d+(\.\d+)+$/.test(word)) return word.split('.').map((d) => numberPiece(d, 'integer'));
  const ordinal = /^(\d+)(st|nd|rd|th)$/.exec(word)?.[1];
  if (ordinal) return [numberPiece(ordinal + ordinalSuffix(Number(ordinal)), 'ordinal')];
  const lead = /^([$£€¢])(\d+(?:\.\d+)?)$/.exec(word);
  if (lead) return [numberPiece(`${lead[1]}${lead[2]}`, 'money')];
  const trail = /^(\d+(?:\.\d+)?)([$£€¢%])$/.exec(word);
  if (!trail) return undefined;
  return trail[2] === '%'
    ? [numberPiece(`${trail[1]}%`, 'percent')]
    : [numberPiece(`${trail[2]}${trail[1]}`, 'money')];
}

/** Turns number words and digit strings into number pieces; every other token passes through. */
class NumberReader {
  private readonly out: Piece[] = [];
  private reading: Reading | null = null;

  constructor(private readonly tokens: NormalizedToken[]) {}

  read(): Piece[] {
    let i = 0;
    while (i < this.tokens.length) i = this.step(i);
    this.flush(false);
    return this.out;
  }

  /** Reads from token i on; answers the index of the first token not consumed. */
  private step(i: number): number {
    const token = this.tokens[i]!;
    const next = this.tokens[i + 1]?.word;
    return (
      this.skipJoiner(token.word, next, i) ??
      this.readRepeated(token.word, next, i) ??
      this.readDecimal(token.word, next, i) ??
      this.readSpelled(token.word, next, i) ??
      this.readDigits(token.word, next, i) ??
      this.passThrough(token, i)
    );
  }

  /** "one hundred and five" (the "and" is part of it), "a hundred" (the "a" is "one"). */
  private skipJoiner(word: string, next: string | undefined, i: number): number | undefined {
    const following = next === undefined ? undefined : spelledNumber(next);
    if (word === 'and' && this.reading && afterScale(this.reading) && following) {
      const small = following.slot !== 'hundred' && following.slot !== 'multiplier';
      return small && following.value > 0 ? i + 1 : undefined;
    }
    if (word === 'a' && (following?.slot === 'hundred' || following?.slot === 'multiplier')) {
      this.flush(false);
      return i + 1;
    }
    return undefined;
  }

  private readRepeated(word: string, next: string | undefined, i: number): number | undefined {
    const times = REPEATS.get(word);
    const digit = next === undefined ? undefined : digitOf(next);
    if (times === undefined || digit === undefined) return undefined;
    this.flush(false);
    for (let n = 0; n < times; n++) this.out.push(numberPiece(digit, 'integer'));
    return i + 2;
  }

  /** "three point one four": the digits after "point" are read one by one. */
  private readDecimal(word: string, next: string | undefined, i: number): number | undefined {
    if (word !== 'point' || !this.reading || next === undefined) return undefined;
    let end = i + 1;
    let digits = '';
    for (let d = digitOf(next); d !== undefined; d = digitOf(this.tokens[end]?.word ?? '')) {
      digits += d;
      end += 1;
    }
    if (!digits) return undefined;
    const whole = this.reading.total + this.reading.group;
    this.reading = null;
    this.out.push(numberPiece(`${whole}.${digits}`, 'decimal'));
    return end;
  }

  private readSpelled(word: string, next: string | undefined, i: number): number | undefined {
    const ordinalOf = this.ordinalCardinal(word, i);
    const cardinal = ordinalOf ?? (this.isSpokenZero(word, next) ? 'zero' : word);
    const spelled = spelledNumber(cardinal);
    if (!spelled) return undefined;
    const extended = this.reading && extendReading(this.reading, spelled);
    if (extended) this.reading = extended;
    else {
      this.flush(false);
      this.reading = startReading(spelled);
    }
    if (ordinalOf !== undefined) this.flush(true);
    return i + 1;
  }

  /** "second" is a unit of time unless a number or "the"/a month comes before it. */
  private ordinalCardinal(word: string, i: number): string | undefined {
    const cardinal = cardinalOfOrdinal(word);
    if (cardinal === undefined || word !== 'second') return cardinal;
    const previous = this.tokens[i - 1]?.word ?? '';
    const completes =
      this.reading !== null && ['tens', 'hundred', 'multiplier'].includes(this.reading.slot);
    return completes || previous === 'the' || MONTHS.has(previous) ? cardinal : undefined;
  }

  /**
   * "oh" is zero after a number and before another ("four oh two") or at the end of the text
   * ("one oh oh"), and an exclamation anywhere else.
   */
  private isSpokenZero(word: string, next: string | undefined): boolean {
    if (word !== 'oh' && word !== 'o') return false;
    const afterNumber = this.reading !== null || this.out.at(-1)?.form === 'integer';
    const beforeNumber =
      next === undefined ||
      digitOf(next) !== undefined ||
      spelledNumber(next) !== undefined ||
      /^\d/.test(next);
    return afterNumber && beforeNumber;
  }

  /** Digit strings as written; "1.5 million" multiplied out. */
  private readDigits(word: string, next: string | undefined, i: number): number | undefined {
    const pieces = digitPieces(word);
    if (!pieces) return undefined;
    this.flush(false);
    const multiplier = next === undefined ? undefined : MULTIPLIERS.get(next);
    const [only] = pieces;
    if (
      multiplier &&
      pieces.length === 1 &&
      (only?.form === 'integer' || only?.form === 'decimal')
    ) {
      this.out.push(numberPiece(String(Math.round(Number(only.word) * multiplier)), 'integer'));
      return i + 2;
    }
    this.out.push(...pieces);
    return i + 1;
  }

  private passThrough(token: NormalizedToken, i: number): number {
    this.flush(false);
    this.out.push(token);
    return i + 1;
  }

  private flush(ordinal: boolean): void {
    if (!this.reading) return;
    const value = this.reading.total + this.reading.group;
    this.reading = null;
    this.out.push(
      ordinal
        ? numberPiece(`${value}${ordinalSuffix(value)}`, 'ordinal')
        : numberPiece(String(value), 'integer'),
    );
  }
}

const isAmount = (piece: Piece | undefined) =>
  piece?.form === 'integer' || piece?.form === 'decimal';

/** "20 dollars" → "$20", "20 percent" / "20 per cent" / "20 %" → "20%". */
function attachUnits(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const next = pieces[i + 1]?.word ?? '';
    const currency = CURRENCY_WORDS.get(next);
    if (isAmount(piece) && currency !== undefined) {
      out.push(numberPiece(currency + piece.word, 'money'));
      i += 1;
    } else if (isAmount(piece) && (next === 'percent' || next === '%')) {
      out.push(numberPiece(`${piece.word}%`, 'percent'));
      i += 1;
    } else if (isAmount(piece) && next === 'per' && pieces[i + 2]?.word === 'cent') {
      out.push(numberPiece(`${piece.word}%`, 'percent'));
      i += 2;
    } else out.push(piece);
  }
  return out;
}

/** "$20 and ¢50" (from "twenty dollars and fifty cents") → "$20.50". */
function mergeCents(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const and = pieces[i + 1]?.word === 'and' ? 1 : 0;
    const cents = pieces[i + 1 + and];
    const whole = piece.form === 'money' && /^[$£€]\d+$/.test(piece.word);
    const centsValue = cents?.form === 'money' ? /^¢(\d\d?)$/.exec(cents.word)?.[1] : undefined;
    if (whole && centsValue !== undefined) {
      out.push(numberPiece(`${piece.word}.${centsValue.padStart(2, '0')}`, 'money'));
      i += 1 + and;
    } else out.push(piece);
  }
  return out;
}

/** Consecutive whole numbers as one digit string (see the module comment for why). */
function joinDigitRuns(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (piece.form === 'integer' && last?.form === 'integer') {
      out[out.length - 1] = numberPiece(last.word + piece.word, 'integer');
    } else out.push(piece);
  }
  return out;
}
