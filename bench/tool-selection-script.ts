import type { JsonObject } from '../src/domain/index.js';

/** One turn of the scripted conversation: what the user says and the tool calls it needs. */
export interface ScriptedTurn {
  readonly text: string;
  readonly needs: readonly (readonly [name: string, args: JsonObject])[];
}

/**
 * A 20-turn 1:1 conversation (English and Japanese) that needs 13 of the 15 optional tools.
 * Turn 15 names no keyword of the tool it needs, so selection reaches it only through the
 * tool finder: its extra model call is counted like any other.
 */
export const TOOL_SELECTION_SCRIPT: readonly ScriptedTurn[] = [
  { text: "Hi! I'm planning a trip to Osaka.", needs: [] },
  {
    text: "What's the weather in Osaka tomorrow?",
    needs: [['get_weather', { location: 'Osaka', date: 'tomorrow' }]],
  },
  { text: 'And what day is it today?', needs: [['get_current_time', {}]] },
  {
    text: 'How much is 20000 yen in US dollars?',
    needs: [['convert_currency', { amount: 20000, from: 'JPY', to: 'USD' }]],
  },
  {
    text: "Thanks! How do you say 'where is the station' in Japanese?",
    needs: [['translate_text', { text: 'Where is the station?', target_language: 'ja' }]],
  },
  {
    text: 'Is the Osaka Loop Line running on time?',
    needs: [['get_train_status', { line: 'Osaka Loop Line' }]],
  },
  { text: 'ok cool', needs: [] },
  {
    text: 'Remind me in 30 minutes to pack my bag',
    needs: [['set_reminder', { text: 'pack my bag', delay_minutes: 30 }]],
  },
  { text: 'What reminders do I have?', needs: [['list_reminders', {}]] },
  { text: 'Cancel that one please', needs: [['cancel_reminder', { id: 'r1' }]] },
  {
    text: 'Any good ramen places near Namba?',
    needs: [['search_places', { query: 'ramen', near: 'Namba, Osaka' }]],
  },
  { text: "What's a 15% tip on 8400?", needs: [['calculate', { expression: '8400 * 0.15' }]] },
  { text: '明日の東京の天気は？', needs: [['get_weather', { location: '東京', date: 'tomorrow' }]] },
  { text: 'ありがとう！', needs: [] },
  {
    text: 'Put the dentist on for 3pm, I keep forgetting',
    needs: [['set_reminder', { text: 'dentist', delay_minutes: 240 }]],
  },
  { text: "What does 'kuidaore' mean?", needs: [['define_word', { word: 'kuidaore' }]] },
  { text: 'Any news about the Osaka Expo?', needs: [['get_news', { topic: 'Osaka Expo' }]] },
  { text: 'How many km is 26 miles?', needs: [['convert_units', { value: 26, from: 'mi', to: 'km' }]] },
  { text: 'see you!', needs: [] },
  { text: 'おやすみ', needs: [] },
];
