/** A place a time question named, and the IANA zone its clocks keep. */
export interface PlaceTimeZone {
  /** The place as the question spelled it in the table ("New York", 「ロンドン」) or the zone itself. */
  readonly place: string;
  readonly timeZone: string;
}

// Common cities, in English and Japanese, with their IANA zones. Small on purpose: the offline
// model is a stand-in, and a place missing here gets "I do not know" rather than a guess.
const CITIES: readonly (readonly [zone: string, names: readonly string[]])[] = [
  ['Europe/London', ['London', 'ロンドン']],
  ['Europe/Paris', ['Paris', 'パリ']],
  ['Europe/Berlin', ['Berlin', 'ベルリン']],
  ['Europe/Rome', ['Rome', 'ローマ']],
  ['Europe/Madrid', ['Madrid', 'マドリード']],
  ['Europe/Amsterdam', ['Amsterdam', 'アムステルダム']],
  ['Europe/Istanbul', ['Istanbul', 'イスタンブール']],
  ['Europe/Moscow', ['Moscow', 'モスクワ']],
  ['Africa/Cairo', ['Cairo', 'カイロ']],
  ['Africa/Johannesburg', ['Johannesburg', 'ヨハネスブルグ']],
  ['Asia/Dubai', ['Dubai', 'ドバイ']],
  ['Asia/Kolkata', ['New Delhi', 'Delhi', 'Mumbai', 'デリー', 'ムンバイ']],
  ['Asia/Bangkok', ['Bangkok', 'バンコク']],
  ['Asia/Ho_Chi_Minh', ['Ho Chi Minh City', 'Hanoi', 'ホーチミン', 'ハノイ']],
  ['Asia/Jakarta', ['Jakarta', 'ジャカルタ']],
  ['Asia/Singapore', ['Singapore', 'シンガポール']],
  ['Asia/Manila', ['Manila', 'マニラ']],
  ['Asia/Hong_Kong', ['Hong Kong', '香港']],
  ['Asia/Shanghai', ['Beijing', 'Shanghai', '北京', '上海']],
  ['Asia/Taipei', ['Taipei', '台北']],
  ['Asia/Seoul', ['Seoul', 'ソウル']],
  ['Asia/Tokyo', ['Tokyo', 'Osaka', 'Kyoto', 'Sapporo', 'Fukuoka', '東京', '大阪', '京都', '札幌', '福岡']],
  ['Australia/Sydney', ['Sydney', 'シドニー']],
  ['Australia/Melbourne', ['Melbourne', 'メルボルン']],
  ['Pacific/Auckland', ['Auckland', 'オークランド']],
  ['Pacific/Honolulu', ['Honolulu', 'Hawaii', 'ホノルル', 'ハワイ']],
  [
    'America/Los_Angeles',
    ['Los Angeles', 'San Francisco', 'Seattle', 'ロサンゼルス', 'サンフランシスコ', 'シアトル'],
  ],
  ['America/Vancouver', ['Vancouver', 'バンクーバー']],
  ['America/Denver', ['Denver', 'デンバー']],
  ['America/Chicago', ['Chicago', 'シカゴ']],
  ['America/Mexico_City', ['Mexico City', 'メキシコシティ']],
  ['America/New_York', ['New York City', 'New York', 'NYC', 'Boston', 'ニューヨーク', 'ボストン']],
  ['America/Toronto', ['Toronto', 'トロント']],
  ['America/Sao_Paulo', ['São Paulo', 'Sao Paulo', 'サンパウロ']],
];

// Longest names first, so "New York City" wins over "New York" and "New Delhi" over "Delhi".
const NAMES = CITIES.flatMap(([timeZone, names]) => names.map((name) => ({ name, timeZone }))).sort(
  (a, b) => b.name.length - a.name.length,
);

const IANA_NAME = /^(?:UTC|[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+)$/;

/**
 * The first known city named in `text` ("What time is it in London?", 「ロンドンは何時？」), or
 * `text` itself when it is an IANA zone name such as "Europe/Berlin". Undefined for a place
 * the table does not know: the caller says so instead of guessing.
 * @example
 * timeZoneOfPlace('New York right now'); // { place: 'New York', timeZone: 'America/New_York' }
 */
export function timeZoneOfPlace(text: string): PlaceTimeZone | undefined {
  const trimmed = text.trim();
  if (IANA_NAME.test(trimmed) && isKnownTimeZone(trimmed)) return { place: trimmed, timeZone: trimmed };
  for (const { name, timeZone } of NAMES) {
    if (mentions(text, name)) return { place: name, timeZone };
  }
  return undefined;
}

/** English names as whole words, case-insensitively; Japanese names anywhere (no word breaks). */
function mentions(text: string, name: string): boolean {
  if (!/^[\p{Script=Latin}\s]+$/u.test(name)) return text.includes(name);
  return new RegExp(`(?<![\\p{L}\\p{N}])${name}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}
