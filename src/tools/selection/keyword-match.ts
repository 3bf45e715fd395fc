/**
 * Finds a tool's keywords in user text. Both sides are NFKC-normalised and lower-cased, so
 * full-width "ＷＥＡＴＨＥＲ" and "Weather" match "weather". A keyword that starts with a
 * Latin letter or digit must start a word ("rain" is not found in "train"); other scripts
 * (Japanese has no spaces) match anywhere.
 * @example
 * const matcher = new KeywordMatcher(['weather', '天気']);
 * matcher.firstIn('明日の天気は？'); // '天気'
 */
export class KeywordMatcher {
  private readonly patterns: readonly { readonly keyword: string; readonly pattern: RegExp }[];

  constructor(keywords: readonly string[]) {
    this.patterns = keywords.map((keyword) => ({ keyword, pattern: patternFor(normalize(keyword.trim())) }));
  }

  /** The first keyword (in declared order) found in `text`, or `undefined`. */
  firstIn(text: string): string | undefined {
    return this.firstInNormalized(normalize(text));
  }

  /** {@link firstIn} for text already passed through {@link normalize}. */
  firstInNormalized(normalized: string): string | undefined {
    return this.patterns.find(({ pattern }) => pattern.test(normalized))?.keyword;
  }
}

/** NFKC and lower case, so widths and cases do not matter. */
export function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function patternFor(keyword: string): RegExp {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return /^[\p{Script=Latin}\p{N}]/u.test(keyword)
    ? new RegExp(`(?<![\\p{L}\\p{N}])${escaped}`, 'u')
    : new RegExp(escaped, 'u');
}
