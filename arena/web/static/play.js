// "Play against bots" (arena/play/play_api.h): /play shows the form (variant,
// opponents among the registered bots, seat, hands); /play/ID is one seat of a
// real match. The page polls GET /api/play/ID (what that seat may see: the
// referee's observation, the legal actions, the time left) every 500 ms and
// answers with POST /api/play/ID/action. The session id in the URL is the only
// credential for the seat: reloading the page resumes it. Every server value
// goes into the page as text (el/textContent), never as HTML.
(function () {
  'use strict';
  const T = window.tarock;
  const el = T.el;
  const main = document.getElementById('main');

  T.nav('play');

  // ---- words (common.js: one wording with the match viewer) ----------------
  function pretty(s) { return T.term(s); }
  function kontraLevelsOf(o) { return T.kontraLevels((o.history || []).map((e) => e.action)); }
  // My legal kontra is one level above the last one on that target.
  function actionLabel(action, o) {
    if (String(action).startsWith('kontra ')) {
      const levels = kontraLevelsOf(o || {});
      const hist = (o && o.history) || [];
      let level = 1;
      hist.forEach((e, i) => { if (e.action === action) level = levels[i] + 1; });
      return T.actionLabel(action, { kontraLevel: level });
    }
    return T.actionLabel(action);
  }
  // Names, not seat numbers: "You" for the person, the bot's name otherwise.
  // A bot that sits twice gets "(2nd)" at its second seat.
  function seatName(view, seat) {
    if (seat === view.seat) return 'You';
    const names = view.seat_names || [];
    const name = names[seat] || 'seat ' + (seat + 1);
    const before = names.slice(0, seat).filter((x, i) => x === name && i !== view.seat).length;
    return before ? name + ' (' + (before + 1) + (before === 1 ? 'nd' : before === 2 ? 'rd' : 'th') + ')' : name;
  }
  function clock(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  }

  // ---- the form ---------------------------------------------------------------
  async function showForm() {
    document.title = 'Play against bots \u00b7 Tarock Arena';
    T.clear(main);
    main.appendChild(el('div', { class: 'page-head' },
      el('h1', null, 'Play against bots'),
      el('span', { class: 'sub' }, 'One seat of a real match on a referee; unrated.')));
    const panel = el('section', { class: 'panel play-form' });
    main.appendChild(panel);
    let variants;
    let bots;
    try {
      [variants, bots] = await Promise.all([T.api('/api/play/variants'), T.api('/api/bots')]);
    } catch (e) {
      panel.appendChild(T.errorBox('Cannot load the bots: ' + e.message));
      return;
    }
    const active = (bots.bots || []).filter((b) => !b.retired);
    const playable = (variants.variants || []).filter((v) =>
      active.some((b) => (b.variants || []).includes(v.name)));
    if (!playable.length) {
      panel.appendChild(el('p', null, 'No registered bot plays any variant yet.'));
      return;
    }
    const variantSel = el('select', { id: 'variant', name: 'variant' },
      playable.map((v) => el('option', { value: v.name }, v.name + (v.title ? ' \u2013 ' + v.title : ''))));
    const preferred = playable.find((v) => v.name === 'slovenian-4p');
    if (preferred) variantSel.value = preferred.name;
    const seatsBox = el('div', { class: 'play-opponents' });
    const seatSel = el('select', { id: 'seat', name: 'seat' });
    const handsSel = el('select', { id: 'hands', name: 'hands' });
    const message = el('div');
    const startBtn = el('button', { type: 'submit', id: 'start' }, 'Start the match');

    function render() {
      const v = playable.find((x) => x.name === variantSel.value);
      const n = v.num_seats;
      const plays = active.filter((b) => (b.variants || []).includes(v.name));
      T.clear(seatsBox);
      for (let i = 0; i < n - 1; i++) {
        const sel = el('select', { class: 'opponent', 'aria-label': 'Opponent ' + (i + 1) },
          plays.map((b) => el('option', { value: b.name }, b.name)));
        // Different bots by default while there are enough.
        sel.value = plays[i % plays.length].name;
        seatsBox.appendChild(el('label', null, 'Opponent ' + (i + 1) + ' ', sel));
      }
      T.clear(seatSel);
      seatSel.appendChild(el('option', { value: '-1' }, 'random'));
      for (let s = 0; s < n; s++) seatSel.appendChild(el('option', { value: String(s) }, 'seat ' + s));
      T.clear(handsSel);
      for (const k of [1, 2, 4]) {
        handsSel.appendChild(el('option', { value: String(k * n) },
          (k * n) + ' hands' + (k === 1 ? ' (one deal per seat)' : '')));
      }
    }
    variantSel.addEventListener('change', render);
    render();

    const form = el('form', { class: 'play-form-grid' },
      el('label', null, 'Variant ', variantSel),
      el('div', null, el('div', { class: 'muted' }, 'Opponents, in seat order after yours'), seatsBox),
      el('label', null, 'Your seat ', seatSel),
      el('label', null, 'Length ', handsSel),
      el('div', null, startBtn),
      message);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      startBtn.disabled = true;
      T.clear(message);
      const body = {
        variant: variantSel.value,
        opponents: Array.from(seatsBox.querySelectorAll('select')).map((s) => s.value),
        seat: Number(seatSel.value),
        hands: Number(handsSel.value),
      };
      try {
        const res = await post('/api/play', body);
        window.location.assign('/play/' + encodeURIComponent(res.id));
      } catch (e) {
        message.appendChild(T.errorBox(e.message));
        startBtn.disabled = false;
      }
    });
    panel.appendChild(form);
    panel.appendChild(el('p', { class: 'muted' },
      'Each decision has a generous time limit, shown as a countdown. The address of the table is ' +
      'your seat: reload it to resume, keep it to yourself. Closing it lets your decisions time out; ' +
      'the referee plays for you and forfeits your seat after a few.'));
  }

  async function post(path, body) {
    let res;
    try {
      res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body), cache: 'no-store' });
    } catch (e) {
      throw new Error('the arena does not answer (' + e.message + ')');
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || ('HTTP ' + res.status));
    return data;
  }

  // ---- the table ----------------------------------------------------------------
  function showTable(id) {
    document.title = 'Your seat \u00b7 Tarock Arena';
    const state = { view: null, version: -1, receivedAt: 0, sending: false, error: null, stop: null };
    const root = el('div', { class: 'play-table' });
    T.clear(main);
    main.appendChild(root);

    async function refresh() {
      try {
        const view = await T.api('/api/play/' + encodeURIComponent(id));
        state.error = null;
        const changed = !state.view || view.version !== state.view.version ||
          view.status !== state.view.status;
        const hadRequest = state.view && state.view.request;
        state.view = view;
        if (view.request && (!hadRequest || hadRequest.request_id !== view.request.request_id || changed)) {
          state.receivedAt = performance.now();
          state.timeLeft = view.request.time_left_ms;
        }
        if (changed) render();
        if ((view.status === 'done' || view.status === 'failed') && state.stop) state.stop();
      } catch (e) {
        if (e.status === 404) {
          if (state.stop) state.stop();
          T.clear(root);
          root.appendChild(el('section', { class: 'panel' },
            el('h1', null, 'No such seat'),
            el('p', null, 'This play session does not exist (it ended long ago, or the arena restarted).'),
            el('p', null, el('a', { href: '/play' }, 'Start a new match'))));
          return;
        }
        state.error = e.message;
        renderError();
      }
    }

    function renderError() {
      const box = document.getElementById('play-error');
      if (!box) return;
      T.clear(box);
      if (state.error) box.appendChild(T.errorBox(state.error));
    }

    async function act(action) {
      const v = state.view;
      if (!v || !v.request || state.sending) return;
      state.sending = true;
      root.classList.add('sending');
      try {
        const view = await post('/api/play/' + encodeURIComponent(id) + '/action',
          { request_id: v.request.request_id, action });
        state.view = view;
        state.error = null;
        render();
      } catch (e) {
        state.error = e.message;
        renderError();
        refresh();
      } finally {
        state.sending = false;
        root.classList.remove('sending');
      }
    }

    // The countdown runs locally between polls.
    setInterval(() => {
      const node = document.getElementById('countdown');
      const v = state.view;
      if (!node || !v || !v.request) return;
      const left = state.timeLeft - (performance.now() - state.receivedAt);
      node.textContent = left > 0 ? clock(left) + ' left' : 'time is up';
      node.classList.toggle('urgent', left < 15000);
      const bar = document.getElementById('countdown-bar');
      if (bar && v.per_decision_ms) bar.style.width = Math.max(0, Math.min(100, 100 * left / v.per_decision_ms)) + '%';
    }, 250);

    function render() {
      const v = state.view;
      T.clear(root);
      const o = v.observation || {};
      const n = v.num_seats || (v.seat_names || []).length || 0;
      const variant = v.variant || '';
      const handNo = v.hand_index !== undefined ? v.hand_index + 1 : null;
      root.appendChild(el('div', { class: 'page-head' },
        el('h1', null, variant ? 'You play ' + variant : 'Your seat'),
        el('span', { class: 'sub', id: 'status', 'data-status': v.status },
          statusText(v), handNo && v.num_hands ? ' \u00b7 hand ' + handNo + ' of ' + v.num_hands : '')));
      root.appendChild(el('div', { id: 'play-error' }));
      renderError();

      if (v.status === 'failed') {
        root.appendChild(el('section', { class: 'panel' },
          el('h2', null, 'The match could not be played'),
          el('p', { class: 'bad' }, v.error || 'The match failed.'),
          el('p', null, el('a', { href: '/play' }, 'Start another match'))));
        return;
      }
      if (v.status === 'done') root.appendChild(resultPanel(v));
      if (v.status === 'waiting' || !o.seat && o.seat !== 0) {
        root.appendChild(el('section', { class: 'panel' }, el('p', null,
          v.status === 'waiting' ? 'Waiting for the referee to open the match\u2026' : 'The deal is coming\u2026')));
      }

      const grid = el('div', { class: 'play-grid' });
      root.appendChild(grid);
      const left = el('div', { class: 'play-main' });
      const right = el('div', { class: 'play-side' });
      grid.appendChild(left);
      grid.appendChild(right);

      const results = v.hand_results || [];
      if (results.length && v.status !== 'done') {
        const h = results[results.length - 1];
        left.appendChild(el('div', { class: 'notice play-last', id: 'last-hand' },
          'Hand ' + (h.hand_index + 1) + ' scored: ',
          h.redeal ? 'a void deal' : (h.contract ? pretty(h.contract) : 'No contract') +
            (h.declarer >= 0 ? ' by ' + seatName(v, h.declarer) : ''),
          ' \u00b7 your score ', el('b', null, T.signed((h.scores || [])[v.seat]))));
      }
      if (v.observation && v.status !== 'done') {
        left.appendChild(seatsPanel(v, o, n));
        left.appendChild(trickPanel(v, o));
        // The turn (countdown, actions) and the hand in one panel, so both
        // show without scrolling on a laptop.
        const turn = turnPanel(v, o);
        turn.appendChild(handPanel(v, o));
        left.appendChild(turn);
        right.appendChild(historyPanel(v, o));
      }
      (v.status === 'done' ? left : right).appendChild(scoresPanel(v, n));
    }

    function statusText(v) {
      if (v.status === 'waiting') return 'waiting for the referee';
      if (v.status === 'done') return 'match over';
      if (v.status === 'failed') return 'failed';
      if (v.request) return 'your turn';
      if (!v.connected) return 'reconnecting to the referee';
      return 'the others are playing';
    }

    function seatsPanel(v, o, n) {
      const rows = [];
      for (let s = 0; s < n; s++) {
        const tags = [];
        if (s === o.dealer) tags.push(T.badge('dealer', 'muted'));
        if (s === o.declarer) tags.push(T.badge('declarer', 'declarer'));
        if (s === o.partner && o.partner >= 0) tags.push(T.badge('partner', 'partner'));
        if (o.radli && o.radli[s]) tags.push(T.badge('radli ' + o.radli[s], 'muted'));
        const won = o.tricks_won && o.tricks_won[s] !== undefined ? o.tricks_won[s] : null;
        rows.push(el('li', { class: 'play-seat' + (s === v.seat ? ' me' : '') + (s === o.to_act ? ' to-act' : '') },
          el('span', { class: 'name' }, seatName(v, s)), ' ', tags,
          won !== null ? el('span', { class: 'muted' }, ' \u00b7 ' + T.count(won, 'trick')) : null));
      }
      const facts = [];
      if (o.phase) facts.push(el('span', null, 'Phase: ', el('b', null, pretty(o.phase))));
      if (o.contract) facts.push(el('span', null, 'Contract: ', el('b', null, pretty(o.contract)),
        o.declarer >= 0 ? ' by ' + seatName(v, o.declarer) : ''));
      if (o.called_king) facts.push(el('span', null, 'Called: ', T.cardElement(o.called_king, { small: true })));
      const talonKnown = (o.talon || []).some((c) => c !== '?');
      if (talonKnown) facts.push(el('span', null, 'Talon: ', el('span', { class: 'cards' },
        o.talon.map((c) => T.cardElement(c, { small: true })))));
      return el('section', { class: 'panel play-seats' },
        el('ul', { class: 'play-seat-list' }, rows),
        facts.length ? el('div', { class: 'play-facts' }, facts) : null);
    }

    // The cards on the table, each with the seat that played it (from the history).
    function trickPanel(v, o) {
      const trick = o.trick || [];
      const history = o.history || [];
      const who = {};
      for (const e of history) {
        if (String(e.action).startsWith('play ')) who[e.action.slice(5)] = e.seat;
      }
      return el('section', { class: 'panel play-trick', id: 'trick' },
        el('h3', null, 'On the table'),
        trick.length
          ? el('div', { class: 'play-trick-cards' }, trick.map((c) => el('div', { class: 'play-trick-card' },
            T.cardElement(c), el('div', { class: 'muted small' }, who[c] !== undefined ? seatName(v, who[c]) : ''))))
          : el('p', { class: 'muted' }, o.phase === 'play' || !o.phase ? 'No card yet.' : 'No trick yet.'));
    }

    function turnPanel(v, o) {
      const box = el('section', { class: 'panel play-turn' + (v.request ? ' active' : ''), id: 'turn',
        'data-request': v.request ? String(v.request.request_id) : '' });
      if (!v.request) {
        box.appendChild(el('p', { class: 'muted' }, v.status === 'done' ? 'The match is over.'
          : v.status === 'playing' ? 'Waiting for the other seats\u2026' : ''));
        return box;
      }
      box.appendChild(el('div', { class: 'play-turn-head' },
        el('b', null, 'Your turn'),
        el('span', { id: 'countdown', class: 'countdown' }, clock(state.timeLeft) + ' left')));
      box.appendChild(el('div', { class: 'countdown-track' }, el('div', { id: 'countdown-bar', class: 'countdown-bar' })));
      const legal = v.request.legal_actions || [];
      const cardActions = legal.filter((a) => a.startsWith('play ') || a.startsWith('discard '));
      const others = legal.filter((a) => !cardActions.includes(a));
      if (cardActions.length) {
        const verb = cardActions[0].split(' ')[0];
        box.appendChild(el('p', null, verb === 'play' ? 'Click a highlighted card of your hand to play it.'
          : 'Click a highlighted card of your hand to discard it.'));
      }
      if (others.length) {
        const talonActions = others.filter((a) => a.startsWith('talon '));
        const groups = talonGroups(o, talonActions.length);
        box.appendChild(el('div', { class: 'play-actions' }, others.map((a) => {
          const b = el('button', { type: 'button', class: 'action', 'data-action': a, onclick: () => act(a) },
            actionLabel(a, o));
          if (a.startsWith('talon ') && groups) {
            const g = groups[Number(a.split(' ')[1])] || [];
            b.appendChild(el('span', { class: 'cards' }, g.map((c) => T.cardElement(c, { small: true }))));
          }
          return b;
        })));
      }
      return box;
    }

    // The talon split into the groups the legal `talon N` actions choose between.
    function talonGroups(o, k) {
      const talon = o.talon || [];
      if (!k || !talon.length || talon.length % k !== 0) return null;
      const size = talon.length / k;
      const out = [];
      for (let i = 0; i < k; i++) out.push(talon.slice(i * size, (i + 1) * size));
      return out;
    }

    function handPanel(v, o) {
      const legal = v.request ? v.request.legal_actions || [] : [];
      const byCard = {};
      for (const a of legal) {
        if (a.startsWith('play ') || a.startsWith('discard ')) byCard[a.split(' ')[1]] = a;
      }
      const cards = T.sortCards(o.hand || []);
      return el('div', { class: 'play-hand', id: 'hand' },
        el('h3', null, 'Your hand', el('span', { class: 'muted' }, ' \u00b7 ' + cards.length + ' cards')),
        el('div', { class: 'play-hand-cards' }, cards.map((c) => {
          const a = byCard[c];
          const face = T.cardElement(c);
          if (!a) {
            // Dimmed only when the decision is about a card of the hand.
            face.classList.add(Object.keys(byCard).length ? 'dim' : 'idle');
            return face;
          }
          const b = el('button', { type: 'button', class: 'play-card action', 'data-action': a,
            title: actionLabel(a), onclick: () => act(a) }, face);
          return b;
        })));
    }

    function historyPanel(v, o) {
      const levels = kontraLevelsOf(o);
      const items = (o.history || []).map((e, i) =>
        el('li', { class: e.seat === v.seat ? 'me' : null },
          T.actionWords(e.action, seatName(v, e.seat), { kontraLevel: levels[i], hidden: true })));
      const list = el('ol', { class: 'play-history', id: 'history' }, items);
      const box = el('section', { class: 'panel' }, el('h3', null, 'This hand'),
        items.length ? list : el('p', { class: 'muted' }, 'Nothing played yet.'));
      setTimeout(() => { list.scrollTop = list.scrollHeight; }, 0);
      return box;
    }

    // Hand rows, then (once the match is over) the end-of-match settlement as
    // its own row where it is not zero, then the Total row: the sum of the
    // rows shown, which is the match's final totals. On a phone the Contract
    // column is hidden and each row's label takes a line of its own above
    // the row's numbers (tr.label-row, shown only there), so every seat's
    // column fits the screen whatever the names and however large the scores.
    function scoresPanel(v, n) {
      const results = v.hand_results || [];
      const cls = (s) => 'num' + (s === v.seat ? ' me' : '');
      const head = el('tr', null, el('th', null, '#'), el('th', { class: 'contract' }, 'Contract'),
        Array.from({ length: n }, (_, s) => el('th', { class: cls(s) }, seatName(v, s))));
      const labelRow = (text) => el('tr', { class: 'label-row' }, el('td', { colspan: n + 1 }, text));
      const rows = results.map((h) => {
        const label = h.redeal ? 'void deal' : pretty(h.contract || '') +
          (h.declarer >= 0 ? ' (' + seatName(v, h.declarer) + ')' : '');
        return [labelRow(label), el('tr', null,
          el('td', null, String(h.hand_index + 1)),
          el('td', { class: 'contract', title: h.declarer >= 0 ? 'declarer: ' + seatName(v, h.declarer) : null }, label),
          (h.scores || []).map((x, s) => el('td', { class: cls(s) }, T.signed(x))))];
      });
      const settlement = v.status === 'done' && Array.isArray(v.settlement) ? v.settlement : null;
      const settle = settlement && settlement.some((x) => Number(x))
        ? [labelRow('Radl settlement'), el('tr', { class: 'settlement', id: 'settlement-row' }, el('td', null, ''),
          el('td', { class: 'contract', title: 'the end-of-match rule of the variant, e.g. 100 off per radl left' },
            'Radl settlement'),
          settlement.map((x, s) => el('td', { class: cls(s) }, T.signed(x))))]
        : null;
      const sums = new Array(n).fill(0);
      results.forEach((h) => (h.scores || []).forEach((x, s) => { sums[s] += Number(x); }));
      if (settle) settlement.forEach((x, s) => { sums[s] += Number(x); });
      const foot = results.length ? [labelRow('Total'), el('tr', { class: 'total' },
        el('td', null, el('span', { class: 'hide-sm' }, 'Total')), el('td', { class: 'contract' }, ''),
        sums.map((x, s) => el('td', { class: cls(s) }, T.signed(x))))] : null;
      return el('section', { class: 'panel play-scores-panel' }, el('h3', null, 'Scores'),
        results.length
          ? el('div', { class: 'table-wrap' }, el('table', { class: 'grid play-scores', id: 'hand-results' },
            el('thead', null, head), el('tbody', null, rows, settle, foot)))
          : el('p', { class: 'muted' }, 'Scores appear after each hand.'));
    }

    function resultPanel(v) {
      const r = v.result || {};
      const totals = r.totals || [];
      const mine = totals[v.seat];
      let place = 1;
      totals.forEach((t, s) => { if (s !== v.seat && Number(t) > Number(mine)) place++; });
      return el('section', { class: 'panel play-result', id: 'result' },
        el('h2', null, 'Match over'),
        el('p', null, 'Your total: ', el('b', null, T.signed(mine)), ' \u00b7 place ' + place + ' of ' + totals.length,
          r.forfeited ? el('span', { class: 'bad' }, ' \u00b7 your seat was forfeited (too many decisions timed out)') : null,
          r.ended_early ? el('span', { class: 'muted' }, ' \u00b7 ended early: ' + r.ended_early) : null),
        el('p', null, T.matchLink(v.match_id, 'View the match ' + v.match_id), ' \u00b7 ',
          el('a', { href: '/play' }, 'Play again')));
    }

    state.stop = T.poll(refresh, 500);
  }

  const m = /^\/play\/([^/]+)\/?$/.exec(window.location.pathname);
  if (m) showTable(decodeURIComponent(m[1]));
  else showForm();
})();
