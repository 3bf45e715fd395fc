import type { JsonObject, ObjectSchema } from '../src/domain/index.js';
import { createReminderTools, type Reminder, type ReminderScheduler } from '../src/reminders/index.js';
import {
  createCurrentTimeTool,
  createWeatherTool,
  defineTool,
  replyTool,
  skipTool,
  type Tool,
  type ToolSpec,
} from '../src/tools/index.js';

// The tool set of the tool-selection benchmark: kaiwa's built-ins (their real metadata, with
// canned results instead of network calls) and ten more optional tools of the kind a LINE bot
// grows, each described as carefully as the built-ins, so the prompt sizes are realistic.

const anyObject: ObjectSchema = { type: 'object' };

function benchTool(tool: Omit<ToolSpec, 'response' | 'optional'> & { readonly result: JsonObject }): Tool {
  const { result, ...metadata } = tool;
  return defineTool({ ...metadata, optional: true, response: anyObject }).implement(() =>
    Promise.resolve({ forLLM: result }),
  );
}

/** A tool's metadata and schemas, without its code. */
function specOf(tool: Tool): ToolSpec {
  const { prepare: _prepare, ...spec } = tool;
  return spec;
}

/** A scheduler that keeps reminders in memory with predictable ids (r1, r2, …). */
function memoryScheduler(): ReminderScheduler {
  const reminders = new Map<string, Reminder>();
  return {
    schedule: (reminder) => Promise.resolve(void reminders.set(reminder.id, reminder)),
    cancel: (_sourceId, id) => Promise.resolve(reminders.delete(id)),
    list: () => Promise.resolve([...reminders.values()]),
  };
}

const weatherReport: JsonObject = {
  location: 'Osaka',
  day: 'tomorrow',
  date: '2026-11-23',
  condition: 'Sunny',
  minTempC: 9,
  maxTempC: 17,
  chanceOfRainPercent: 10,
};

/** Every tool of the benchmark: 3 required (reply, skip, and the finder when selecting) and 15 optional. */
export function benchTools(): Tool[] {
  let reminderCount = 0;
  return [
    replyTool,
    skipTool,
    // The real metadata, a canned report.
    defineTool(specOf(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }))).implement(() =>
      Promise.resolve({ forLLM: weatherReport }),
    ),
    createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' }),
    ...createReminderTools({ scheduler: memoryScheduler(), newId: () => `r${++reminderCount}` }),
    benchTool({
      name: 'translate_text',
      description: 'Translate a text between languages, keeping names and numbers as they are.',
      category: 'language',
      usageHint: 'When the user asks how to say something in another language or to translate a message.',
      keywords: [
        'translate',
        'translation',
        'how do you say',
        'in japanese',
        'in english',
        '翻訳',
        '英語で',
        '日本語で',
      ],
      examples: [
        { description: 'Say it in Japanese', args: { text: 'Where is the station?', target_language: 'ja' } },
      ],
      parameters: {
        type: 'object',
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 2000, description: 'What to translate' },
          target_language: {
            type: 'string',
            pattern: '^[a-z]{2}$',
            description: 'ISO 639-1 code, e.g. "ja"',
          },
          source_language: {
            type: 'string',
            pattern: '^[a-z]{2}$',
            description: 'ISO 639-1 code; detected when absent',
          },
        },
        required: ['text', 'target_language'],
        additionalProperties: false,
      },
      result: { translation: '駅はどこですか？', reading: 'eki wa doko desu ka' },
    }),
    benchTool({
      name: 'convert_currency',
      description: "Convert an amount of money between currencies at the day's reference rate.",
      category: 'money',
      complex: true,
      usageHint: 'When the user asks what an amount is worth in another currency, or about exchange rates.',
      keywords: [
        'yen',
        'dollar',
        'euro',
        'currency',
        'exchange rate',
        '円',
        'ドル',
        'ユーロ',
        '為替',
        '両替',
      ],
      examples: [
        { description: '20,000 yen in dollars', args: { amount: 20000, from: 'JPY', to: 'USD' } },
        { description: 'Rate only', args: { amount: 1, from: 'EUR', to: 'JPY' } },
      ],
      parameters: {
        type: 'object',
        properties: {
          amount: { type: 'number', minimum: 0, description: 'The amount in the source currency' },
          from: {
            type: 'string',
            pattern: '^[A-Z]{3}$',
            description: 'ISO 4217 code of the source currency',
          },
          to: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the target currency' },
          date: { type: 'string', format: 'date', description: 'A past day for a historical rate' },
        },
        required: ['amount', 'from', 'to'],
        additionalProperties: false,
      },
      result: { amount: 134.2, currency: 'USD', rate: 0.00671, date: '2026-11-22' },
    }),
    benchTool({
      name: 'get_train_status',
      description: 'Get delays and suspensions on a Japanese train line right now.',
      category: 'transport',
      usageHint: 'When the user asks whether a train line is running, delayed or suspended.',
      keywords: [
        'train',
        'line running',
        'delay',
        'on time',
        'subway',
        '電車',
        '遅延',
        '運行',
        '運休',
        '地下鉄',
      ],
      examples: [{ description: 'Loop line', args: { line: 'Osaka Loop Line' } }],
      parameters: {
        type: 'object',
        properties: {
          line: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description: 'The line name in English or Japanese',
          },
        },
        required: ['line'],
        additionalProperties: false,
      },
      result: { line: 'Osaka Loop Line', status: 'on time', updatedAt: '2026-11-22T10:00:00+09:00' },
    }),
    benchTool({
      name: 'search_places',
      description: 'Find restaurants, cafés, shops and sights near a place, with ratings and opening hours.',
      category: 'places',
      complex: true,
      usageHint: 'When the user looks for somewhere to eat, drink, shop or visit near a place.',
      keywords: [
        'restaurant',
        'ramen',
        'sushi',
        'cafe',
        'café',
        'places',
        'near',
        'shop',
        'お店',
        'ラーメン',
        '近く',
        'カフェ',
        'レストラン',
      ],
      examples: [
        { description: 'Ramen near Namba', args: { query: 'ramen', near: 'Namba, Osaka' } },
        {
          description: 'Open late',
          args: { query: 'izakaya', near: 'Umeda', open_now: true, max_results: 3 },
        },
      ],
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 100, description: 'What kind of place' },
          near: { type: 'string', minLength: 1, maxLength: 100, description: 'An area, station or address' },
          open_now: { type: 'boolean', default: false, description: 'Only places open now' },
          max_results: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
          price_level: { type: 'string', enum: ['cheap', 'moderate', 'expensive'], description: 'Budget' },
        },
        required: ['query', 'near'],
        additionalProperties: false,
      },
      result: { places: [{ name: 'Ramen Kamukura', rating: 4.2, open: '10:00–24:00' }] },
    }),
    benchTool({
      name: 'calculate',
      description: 'Evaluate an arithmetic expression exactly (+ - * / % ^ and parentheses).',
      category: 'utility',
      usageHint: 'When the answer needs arithmetic: totals, splits, tips, percentages.',
      keywords: ['calculate', 'percent', 'tip', 'split', 'total', 'how much is', '計算', '割り勘', '合計'],
      intents: [/\d+\s*%/, /\d+\s*[+\-*/×÷]\s*\d+/],
      examples: [{ description: '15% of 8400', args: { expression: '8400 * 0.15' } }],
      parameters: {
        type: 'object',
        properties: {
          expression: { type: 'string', minLength: 1, maxLength: 200, description: 'The expression' },
        },
        required: ['expression'],
        additionalProperties: false,
      },
      result: { value: 1260 },
    }),
    benchTool({
      name: 'define_word',
      description: 'Look a word or phrase up in a dictionary: meanings, reading and examples.',
      category: 'language',
      usageHint: 'When the user asks what a word means or how to read it.',
      keywords: ['mean', 'meaning', 'define', 'definition', 'what does', '意味', '読み方'],
      examples: [{ description: 'A Japanese word', args: { word: '食い倒れ' } }],
      parameters: {
        type: 'object',
        properties: {
          word: { type: 'string', minLength: 1, maxLength: 100 },
          language: { type: 'string', pattern: '^[a-z]{2}$', default: 'ja' },
        },
        required: ['word'],
        additionalProperties: false,
      },
      result: { word: 'kuidaore', meaning: 'to eat oneself into ruin', reading: 'くいだおれ' },
    }),
    benchTool({
      name: 'get_news',
      description: "Get today's top news headlines, optionally about a topic.",
      category: 'information',
      usageHint: 'When the user asks about the news or recent events.',
      keywords: ['news', 'headline', 'latest', 'ニュース', '最新'],
      examples: [{ description: 'About the Expo', args: { topic: 'Osaka Expo', limit: 3 } }],
      parameters: {
        type: 'object',
        properties: {
          topic: { type: 'string', maxLength: 100 },
          limit: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
        },
        additionalProperties: false,
      },
      result: { headlines: [{ title: 'Expo site to reopen as a park', source: 'NHK' }] },
    }),
    benchTool({
      name: 'convert_units',
      description: 'Convert a quantity between units of length, weight, volume, speed or temperature.',
      category: 'utility',
      usageHint: 'When the user asks for a quantity in other units (miles to km, °F to °C, pounds to kg).',
      keywords: [
        'km',
        'miles',
        'mile',
        'kg',
        'pounds',
        'fahrenheit',
        'celsius',
        'inches',
        'convert',
        '換算',
        'キロ',
        'マイル',
      ],
      examples: [{ description: 'A marathon in km', args: { value: 26.2, from: 'mi', to: 'km' } }],
      parameters: {
        type: 'object',
        properties: {
          value: { type: 'number' },
          from: { type: 'string', minLength: 1, maxLength: 10 },
          to: { type: 'string', minLength: 1, maxLength: 10 },
        },
        required: ['value', 'from', 'to'],
        additionalProperties: false,
      },
      result: { value: 41.8, unit: 'km' },
    }),
    benchTool({
      name: 'get_stock_price',
      description: 'Get the latest price of a listed stock or index.',
      category: 'money',
      usageHint: 'When the user asks how a stock or market index is doing.',
      keywords: ['stock', 'share price', 'nikkei', 'index', '株価', '日経'],
      examples: [{ description: 'Toyota', args: { symbol: '7203.T' } }],
      parameters: {
        type: 'object',
        properties: { symbol: { type: 'string', minLength: 1, maxLength: 20, description: 'Ticker symbol' } },
        required: ['symbol'],
        additionalProperties: false,
      },
      result: { symbol: '7203.T', price: 2890 },
    }),
    benchTool({
      name: 'start_poll',
      description: 'Start a poll among the members of this group, with up to ten options.',
      category: 'group',
      sourceKinds: ['group', 'room'],
      usageHint: 'When group members want to decide something together by vote.',
      keywords: ['poll', 'vote', '投票', '多数決'],
      examples: [{ description: 'Lunch', args: { question: 'Lunch?', options: ['ramen', 'sushi'] } }],
      parameters: {
        type: 'object',
        properties: {
          question: { type: 'string', minLength: 1, maxLength: 200 },
          options: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 10 },
        },
        required: ['question', 'options'],
        additionalProperties: false,
      },
      result: { pollId: 'p1' },
    }),
  ];
}
