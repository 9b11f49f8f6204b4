// The group's chat, for the organizer: a webhook link (Discord, Slack, or anything that takes
// JSON) told of every roll, choice and result. The link is a secret and never shown again; the
// page shows its host and how delivery goes, read again every 30 seconds while it is open.
import { api } from './api.js';
import { h } from './dom.js';
import { errorSlot, showError } from './actions.js';
import { problemWords } from './words.js';

const KIND_WORDS = { discord: 'Discord', slack: 'Slack', generic: 'plain JSON' };

function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

function statusWords(s, what) {
  if (!s.set) return [h('p', { id: 'chat-state', text: `No chat hears ${what} yet.` })];
  const counts = `${s.delivered} message${s.delivered === 1 ? '' : 's'} delivered`
    + `${s.pending ? `, ${s.pending} waiting` : ''}${s.failed ? `, ${s.failed} not delivered` : ''}.`;
  const out = [h('p', { id: 'chat-state' }, 'Telling the chat at ', h('strong', { text: s.host }),
    ` (${KIND_WORDS[s.kind] || s.kind})${s.inherited ? ', the grand campaign\'s chat' : ''}. `, counts,
    s.last_delivered_at ? ` Last one: ${when(s.last_delivered_at)}.` : '')];
  if (s.last_error && (s.pending || s.failed)) {
    out.push(h('p', { class: s.pending ? 'hint' : 'error', id: 'chat-error' },
      `${s.pending ? 'Trying again' : 'Gave up'}: ${s.last_error}.`,
      s.pending && s.next_attempt_at ? ` Next try: ${when(s.next_attempt_at)}.` : '',
      s.pending ? '' : ' Check the link, then set it again.'));
  }
  return out;
}

// `path`: "/campaigns/<id>" or "/grand-campaigns/<id>"; `what`: "this campaign"...
export function chatPanel(path, key, what) {
  const state = h('div', { id: 'chat-status', 'aria-live': 'polite' }, h('p', { class: 'muted', text: 'Loading…' }));
  const url = h('input', { type: 'url', id: 'chat-url', inputmode: 'url', autocomplete: 'off', maxlength: 2000, placeholder: 'https://discord.com/api/webhooks/…' });
  const kind = h('select', { id: 'chat-kind' },
    h('option', { value: '', text: 'Tell from the link' }), h('option', { value: 'discord', text: 'Discord' }),
    h('option', { value: 'slack', text: 'Slack' }), h('option', { value: 'generic', text: 'Other (plain JSON)' }));
  const err = errorSlot('chat-error-slot');
  const save = h('button', { type: 'submit', id: 'chat-save' }, 'Tell this chat');
  const remove = h('button', { type: 'button', class: 'secondary', id: 'chat-remove', hidden: true }, 'Stop telling the chat');
  let timer = null;

  async function refresh() {
    try {
      const { data } = await api('GET', `${path}/webhook`, { key });
      state.replaceChildren(...statusWords(data, what));
      remove.hidden = !data.set || data.inherited;
    } catch (e) {
      state.replaceChildren(h('p', { class: 'error', text: `Could not read how the chat goes: ${problemWords(e)}` }));
    }
  }

  async function send(body, done) {
    err.hidden = true;
    save.disabled = remove.disabled = true;
    try {
      const { data } = await api('POST', `${path}/webhook`, { key, body });
      url.value = '';
      state.replaceChildren(...statusWords(data, what));
      remove.hidden = !data.set || data.inherited;
      state.prepend(h('p', { class: 'done', text: done }));
      setTimeout(refresh, 3000); // the greeting is on its way
    } catch (e) {
      showError(err, e);
    } finally {
      save.disabled = remove.disabled = false;
    }
  }

  const form = h('form', { id: 'chat-form', novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    const link = url.value.trim();
    if (!link) { showError(err, { message: 'Paste the chat\'s webhook link first.', field: 'url' }); url.focus(); return; }
    const body = { url: link };
    if (kind.value) body.kind = kind.value;
    send(body, 'Saved: the chat gets a first message now.');
  } },
  h('div', {}, h('label', { for: url.id, text: 'Webhook link of your group\'s chat' }), url),
  h('div', {}, h('label', { for: kind.id, text: 'Chat' }), kind),
  h('p', { class: 'hint', text: 'The link is a secret: whoever has it can post in your chat. It is kept on the server and never shown again, here or anywhere.' }),
  save, ' ', remove, err);
  remove.addEventListener('click', () => send({ url: null }, 'The chat is no longer told.'));

  const el = h('div', { class: 'card', id: 'chat' },
    h('p', { class: 'hint', text: `When a side rolls, chooses, or a result is recorded, a short message goes to your group's chat (Discord, Slack, or any service that takes a webhook).` }),
    state, form);
  refresh();
  // Read again while the page is open; the timer stops when the panel leaves the page.
  timer = setInterval(() => { if (!el.isConnected) clearInterval(timer); else if (!document.hidden) refresh(); }, 30000);
  return el;
}
