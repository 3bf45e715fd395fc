// The emulator's chat page: talk to the bot as LINE users, 1:1 or in groups and rooms.
// It posts to /emulator/api/messages (the server signs and sends a real webhook) and
// follows the transcript live over server-sent events.

const state = {
  chats: JSON.parse(localStorage.getItem('kaiwa.chats') || 'null') || [
    { kind: 'user', name: 'Aiko' },
    { kind: 'group', name: 'Weekend trip', members: ['Aiko', 'Ken', 'Mei'] },
  ],
  current: 0,
  chatIds: new Map(),
  entries: [],
};

const elements = {
  chats: document.getElementById('chats'),
  title: document.getElementById('chat-title'),
  messages: document.getElementById('messages'),
  composer: document.getElementById('composer'),
  text: document.getElementById('text'),
  speaker: document.getElementById('speaker'),
  speakerLabel: document.getElementById('speaker-label'),
  members: document.getElementById('members'),
  newChat: document.getElementById('new-chat'),
};

const chatKey = (chat) => `${chat.kind}:${chat.name}`;
const currentChat = () => state.chats[state.current];

async function chatIdOf(chat) {
  const key = chatKey(chat);
  if (!state.chatIds.has(key)) {
    const response = await fetch(
      `/emulator/api/chat-id?kind=${chat.kind}&name=${encodeURIComponent(chat.name)}`,
    );
    state.chatIds.set(key, (await response.json()).id);
  }
  return state.chatIds.get(key);
}

function saveChats() {
  localStorage.setItem('kaiwa.chats', JSON.stringify(state.chats));
}

function renderChats() {
  elements.chats.replaceChildren(
    ...state.chats.map((chat, index) => {
      const button = document.createElement('button');
      button.textContent =
        chat.kind === 'user' ? `👤 ${chat.name}` : `${chat.kind === 'group' ? '👥' : '🚪'} ${chat.name}`;
      button.setAttribute('aria-current', String(index === state.current));
      button.addEventListener('click', () => selectChat(index));
      return button;
    }),
  );
}

async function selectChat(index) {
  state.current = index;
  const chat = currentChat();
  elements.title.textContent = chat.kind === 'user' ? `1:1 with ${chat.name}` : `${chat.name} (${chat.kind})`;
  elements.speakerLabel.hidden = chat.kind === 'user';
  elements.members.replaceChildren(
    ...(chat.members || []).map((member) =>
      Object.assign(document.createElement('option'), { value: member }),
    ),
  );
  if (chat.kind !== 'user' && chat.members?.length) elements.speaker.value = chat.members[0];
  renderChats();
  await renderMessages();
}

async function renderMessages() {
  const chatId = await chatIdOf(currentChat());
  const entries = state.entries.filter((entry) => entry.chatId === chatId);
  const byId = new Map(state.entries.map((entry) => [entry.id, entry]));
  elements.messages.replaceChildren(...entries.map((entry) => renderEntry(entry, byId)));
  elements.messages.scrollTop = elements.messages.scrollHeight;
}

function renderEntry(entry, byId) {
  const item = document.createElement('li');
  item.className = `message ${entry.from}`;
  item.dataset.from = entry.from;
  if (entry.via) item.dataset.via = entry.via;
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = entry.from === 'user' ? entry.userName : entry.from === 'bot' ? 'kaiwa' : 'LINE';
  const bubble = document.createElement('div');
  bubble.className = 'bubble';
  const quoted = entry.quotedId && byId.get(entry.quotedId);
  if (quoted) {
    const quote = document.createElement('div');
    quote.className = 'quote';
    quote.textContent = `${quoted.userName || 'kaiwa'}: ${quoted.text}`;
    bubble.append(quote);
  }
  bubble.append(document.createTextNode(entry.text));
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = `${new Date(entry.time).toLocaleTimeString()}${entry.via ? ` · ${entry.via}` : ''}`;
  item.append(who, bubble, meta);
  return item;
}

elements.composer.addEventListener('submit', async (event) => {
  event.preventDefault();
  const chat = currentChat();
  const text = elements.text.value;
  if (!text) return;
  const userName = chat.kind === 'user' ? chat.name : elements.speaker.value.trim() || 'Aiko';
  if (chat.kind !== 'user' && !(chat.members || []).includes(userName)) {
    chat.members = [...(chat.members || []), userName];
    saveChats();
  }
  elements.text.value = '';
  await fetch('/emulator/api/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat: { kind: chat.kind, name: chat.name }, userName, text }),
  });
});

elements.newChat.addEventListener('submit', (event) => {
  event.preventDefault();
  const kind = document.getElementById('new-chat-kind').value;
  const name = document.getElementById('new-chat-name').value.trim();
  if (!name) return;
  state.chats.push(kind === 'user' ? { kind, name } : { kind, name, members: ['Aiko'] });
  saveChats();
  document.getElementById('new-chat-name').value = '';
  void selectChat(state.chats.length - 1);
});

async function start() {
  const response = await fetch('/emulator/api/transcript');
  state.entries = (await response.json()).entries;
  await selectChat(0);
  const stream = new EventSource('/emulator/api/stream');
  stream.onmessage = async (message) => {
    state.entries.push(JSON.parse(message.data));
    await renderMessages();
  };
}

void start();
