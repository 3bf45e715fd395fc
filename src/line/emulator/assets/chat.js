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
  /** The message the next text replies to (LINE's quote), if any. */
  quoting: undefined,
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
  mode: document.getElementById('mode'),
  controlStatus: document.getElementById('control-status'),
  quoting: document.getElementById('quoting'),
  quotingText: document.getElementById('quoting-text'),
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
  renderEventChoices();
  await renderMessages();
}

async function renderMessages() {
  const chatId = await chatIdOf(currentChat());
  const inChat = state.entries.filter((entry) => entry.chatId === chatId);
  // The loading animation lasts until the bot's next message or its time runs out, as on LINE.
  const entries = inChat.filter((entry, index) => {
    if (entry.from !== 'loading') return true;
    const answered = inChat
      .slice(index + 1)
      .some((later) => later.from === 'bot' || later.from === 'loading');
    return !answered && Date.now() - entry.time < entry.seconds * 1000;
  });
  const byId = new Map(state.entries.map((entry) => [entry.id, entry]));
  elements.messages.replaceChildren(...entries.map((entry) => renderEntry(entry, byId)));
  elements.messages.scrollTop = elements.messages.scrollHeight;
}

function renderEntry(entry, byId) {
  const item = document.createElement('li');
  item.className = `message ${entry.from}${entry.via ? ` ${entry.via}` : ''}`;
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
  if (entry.media?.type === 'image' && entry.media.url) {
    const image = document.createElement('img');
    image.src = entry.media.url;
    image.alt = 'image sent in the emulator';
    bubble.append(image);
  } else {
    bubble.append(document.createTextNode(entry.text));
  }
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = `${new Date(entry.time).toLocaleTimeString()}${entry.via ? ` · ${entry.via}` : ''}`;
  item.append(who, bubble, meta);
  if (entry.from === 'user' || entry.from === 'bot') {
    const reply = document.createElement('button');
    reply.type = 'button';
    reply.className = 'reply-to';
    reply.textContent = 'Reply';
    reply.setAttribute('aria-label', `Reply to ${who.textContent}: ${entry.text}`);
    reply.addEventListener('click', () => quote(entry));
    item.append(reply);
  }
  return item;
}

/** The next text replies to `entry` (LINE's quote), until it is sent or cancelled. */
function quote(entry) {
  state.quoting = entry;
  elements.quoting.hidden = !entry;
  elements.quotingText.textContent = entry ? `Replying to ${entry.userName || 'kaiwa'}: ${entry.text}` : '';
  if (entry) elements.text.focus();
}
document.getElementById('quoting-cancel').addEventListener('click', () => quote(undefined));

/** Sends what the person did as the current speaker; the server turns it into a signed webhook. */
async function send(action) {
  const chat = currentChat();
  const userName = chat.kind === 'user' ? chat.name : elements.speaker.value.trim() || 'Aiko';
  if (chat.kind !== 'user' && !(chat.members || []).includes(userName)) {
    chat.members = [...(chat.members || []), userName];
    saveChats();
  }
  const response = await fetch('/emulator/api/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      chat: { kind: chat.kind, name: chat.name },
      userName,
      action,
      mode: elements.mode.value,
    }),
  });
  const answer = await response.json();
  if (answer.webhookFailure) showStatus(`LINE: the webhook failed (${answer.webhookFailure})`);
  return answer;
}

elements.composer.addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = elements.text.value;
  if (!text) return;
  elements.text.value = '';
  const quotedMessageId = state.quoting?.id;
  quote(undefined);
  await send({ type: 'text', text, ...(quotedMessageId && { quotedMessageId }) });
});

const stickers = [
  { packageId: '11537', stickerId: '52002734', keywords: ['thumbs up', 'ok', 'good'] },
  { packageId: '11537', stickerId: '52002738', keywords: ['hi', 'hello', 'wave'] },
  { packageId: '11538', stickerId: '51626501', keywords: ['thank you', 'thanks'] },
];
document.getElementById('send-sticker').addEventListener('click', () => {
  void send({ type: 'sticker', ...stickers[Math.floor(Math.random() * stickers.length)] });
});

document.getElementById('send-location').addEventListener('click', () => {
  void send({
    type: 'location',
    title: 'Tokyo Station',
    address: '1 Chome Marunouchi, Chiyoda City, Tokyo',
    latitude: 35.681236,
    longitude: 139.767125,
  });
});

document.getElementById('send-image').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  const data = await new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1]);
    reader.readAsDataURL(file);
  });
  event.target.value = '';
  await send({ type: 'image', mimeType: file.type || 'image/png', data });
});

const eventsFor = {
  user: [
    ['follow', 'follow the bot'],
    ['unfollow', 'unfollow (deletes the conversation)'],
  ],
  group: [
    ['join', 'add the bot to the group'],
    ['memberJoined', 'speaker joins'],
    ['memberLeft', 'speaker leaves'],
    ['leave', 'remove the bot'],
  ],
};
eventsFor.room = eventsFor.group;
const eventSelect = document.getElementById('send-event');
function renderEventChoices() {
  const choices = [...eventsFor[currentChat().kind], ['unsend', 'unsend my last message']];
  eventSelect.replaceChildren(
    Object.assign(document.createElement('option'), { value: '', textContent: 'events…' }),
    ...choices.map(([value, label]) =>
      Object.assign(document.createElement('option'), { value, textContent: label }),
    ),
  );
}
eventSelect.addEventListener('change', async () => {
  const type = eventSelect.value;
  eventSelect.value = '';
  if (type === 'unsend') {
    const chatId = await chatIdOf(currentChat());
    const mine = state.entries.filter((entry) => entry.chatId === chatId && entry.from === 'user').at(-1);
    if (mine) await send({ type: 'unsend', messageId: mine.id });
    return;
  }
  if (type) await send({ type });
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

// The controls: LINE's redelivery, standby mode, a slow bot, and faults on the bot's LINE calls.
function showStatus(text) {
  elements.controlStatus.textContent = text;
}

async function postControl(path, body) {
  const response = await fetch(`/emulator/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.message);
  return answer;
}

async function control(action) {
  try {
    showStatus(await action());
  } catch (error) {
    showStatus(`refused: ${error.message}`);
  }
}

async function showPendingFaults() {
  const { faults, slowWebhook } = await (await fetch('/emulator/api/controls')).json();
  const parts = faults.map(
    (fault) =>
      `${fault.kind === 'drop-connection' ? 'drop' : fault.status}${fault.monthlyLimit ? ' monthly' : ''} × ${fault.remaining} on ${fault.endpoint || 'every endpoint'}${fault.delivered ? ' (delivered first)' : ''}`,
  );
  if (slowWebhook) parts.push(`slow webhook ${slowWebhook.delayMs} ms × ${slowWebhook.remaining}`);
  return parts.length ? `waiting: ${parts.join('; ')}` : 'no faults waiting';
}

document.getElementById('redeliver').addEventListener('click', () =>
  control(async () => {
    const answer = await postControl('redeliver', { chatId: await chatIdOf(currentChat()) });
    return `redelivered ${answer.webhookEventId}: ${answer.webhookFailure || answer.webhookStatus}`;
  }),
);
document.getElementById('slow-webhook').addEventListener('click', () =>
  control(async () => {
    await postControl('slow-webhook', {
      delayMs: Number(document.getElementById('slow-delay').value),
      times: 1,
    });
    return showPendingFaults();
  }),
);
document.getElementById('inject-fault').addEventListener('click', () =>
  control(async () => {
    const choice = document.getElementById('fault-kind').value;
    const endpoint = document.getElementById('fault-endpoint').value;
    await postControl('faults', {
      kind: choice === 'monthly-limit' ? 'too-many-requests' : choice,
      ...(choice === 'monthly-limit' && { monthlyLimit: true }),
      times: Number(document.getElementById('fault-times').value),
      ...(endpoint && { endpoint }),
      ...(document.getElementById('fault-delivered').checked &&
        choice !== 'too-many-requests' &&
        choice !== 'monthly-limit' && { delivered: true }),
    });
    return showPendingFaults();
  }),
);
document.getElementById('clear-faults').addEventListener('click', () =>
  control(async () => {
    await fetch('/emulator/api/faults', { method: 'DELETE' });
    return showPendingFaults();
  }),
);

async function start() {
  const response = await fetch('/emulator/api/transcript');
  state.entries = (await response.json()).entries;
  await selectChat(0);
  const stream = new EventSource('/emulator/api/stream');
  stream.onmessage = async (message) => {
    state.entries.push(JSON.parse(message.data));
    await renderMessages();
  };
  // Loading indicators expire by time: redraw now and then.
  setInterval(() => void renderMessages(), 1000);
}

void start();
