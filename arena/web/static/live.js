// Live spectating: a running match's public view pushed by the arena as it is
// played (server-sent events, GET /api/live/matches/ID), the list of matches
// being played now on the home page and tournament pages that refresh as their
// matches finish (GET /api/live). Only public information ever reaches this
// page (the arena's live hub gets the referee's public view: bids, calls,
// announcements, the talon once exposed, the cards played, trick winners, hand
// scores); the full record replaces it once every table has finished the deal.
// Hooks: T.liveMatch (viewer.js, a match with no record yet), T.liveList (home),
// T.liveTournament (tournament page).
(function () {
  'use strict';
  const T = window.tarock;
  const { el, clear, signed, botLink } = T;

  // Actions in words: T.actionWords (common.js), as the viewer and the play
  // page say them ("north announces Rekontra on the game", "south takes the
  // second talon group"); a discard here is "a card" (not public).

  // The state of the page, kept for the browser tests: the last events as
  // received (at most STATE_EVENTS of them, so a long match does not grow the
  // tab) and how many came in all.
  const STATE_EVENTS = 400;
  // `drawn`: the hand and action index of the last event the page shows (the
  // page is drawn a little after the events, so it may show an earlier moment).
  const state = { events: [], count: 0, first: 0, renders: 0, drawn: { hand: -1, index: -2 }, ended: null };
  T.liveState = state;

  // The live view's cost on the main thread (issue 48): an event only updates
  // the model; the page is drawn at most once per animation frame (none while
  // the tab is hidden) and at most every DRAW_MS, and only what changed: the felt and each seat when
  // their content differs, the log by appending (at most LOG_LINES lines),
  // the hands table by a row a hand (the last HAND_ROWS shown, the total kept).
  const LOG_LINES = 150;
  const HAND_ROWS = 12;
  const DRAW_MS = 100;

  // A running (or pending) match: the live panel under the viewer's head.
  function liveMatch(main, match, names) {
    const box = el('div', { class: 'panel live', id: 'live' });
    const status = el('div', { class: 'sub', id: 'live-status' }, 'Connecting\u2026');
    const legend = el('p', { class: 'legend', id: 'live-legend' }, 'Shown as it is played: bids, the king called, announcements, the talon once it is ' +
      'exposed, the cards played and who won each trick. The players\u2019 hands appear when every table has finished the deal.');
    const felt = el('div', { class: 'table-felt', id: 'live-felt' });
    const seatBox = el('div', { class: 'seats', id: 'live-seats' });
    const log = el('ol', { id: 'live-log' });
    const logBox = el('div', { class: 'actions-log' }, log);
    const scores = el('div', { id: 'live-scores' });
    const play = el('div', { id: 'live-play' }, felt, seatBox, el('h3', null, 'This hand'), logBox, scores);
    const withheld = el('p', { id: 'live-withheld', hidden: true }, 'Its result and record appear here when the set\u2019s last table has finished. Meanwhile: ',
      el('a', { href: '/#watch' }, 'watch the last finished set'), '.');
    box.append(el('h2', null, el('span', { class: 'live-dot' }), 'Live'), status, legend, withheld, play);
    main.append(box);
    const handsHead = document.getElementById('match-hands');
    const seatName = (s) => (s >= 0 && s < names.length ? names[s] : 'seat ' + s);
    let info = null;
    let hand = -1;
    let pub = null;         // the public state after the last event
    const handActions = [];  // this hand's actions so far (for kontra levels)
    let lastTrick = null;   // {cards, leader, winner} of the trick just completed
    let trick = [];         // cards of the trick in play, as they came
    // Waiting to be drawn at the next frame.
    let pendingLines = [];  // log lines (nodes) not yet on the page
    let resetLog = false;   // a new hand: the log starts afresh
    const pendingHands = [];  // hand_end data not yet in the table
    let resetScores = false;
    let frame = 0;
    const drawn = { status: '', felt: '', seats: [], hands: '' };
    let at = { hand: -1, index: -2 };  // the last hand or action event's position

    // At most one draw an animation frame, and at most one every DRAW_MS: a
    // match of bots makes a hundred actions a second, more than anyone reads.
    let lastDraw = 0;
    function schedule() {
      if (frame) return;
      const wait = lastDraw + DRAW_MS - performance.now();
      frame = wait > 0 ? setTimeout(() => { frame = window.requestAnimationFrame(draw); }, wait) : window.requestAnimationFrame(draw);
    }

    function feltKey() {
      if (!pub) return '';
      const shown = lastTrick && (!pub.trick || !pub.trick.length) ? lastTrick : null;
      if (shown) return 'w' + shown.winner + ':' + shown.leader + ':' + shown.cards.join(',');
      if ((pub.trick || []).length) return 't' + pub.trick_leader + ':' + pub.trick.join(',');
      return 'p' + pub.phase + ':' + (pub.talon || []).join(',');
    }
    function drawFelt() {
      clear(felt);
      if (!pub) return;
      const n = pub.num_seats;
      const shown = lastTrick && (!pub.trick || !pub.trick.length) ? lastTrick : null;
      const cards = shown ? shown.cards : (pub.trick || []);
      const leader = shown ? shown.leader : pub.trick_leader;
      if (cards.length) {
        felt.appendChild(el('div', { class: 'label', style: { width: '100%' } },
          shown ? 'Trick won by ' + seatName(shown.winner) : 'Trick'));
        cards.forEach((c, i) => {
          const s = (leader + i) % n;
          felt.appendChild(el('div', { class: 'slot' }, T.cardElement(c, { mark: shown && s === shown.winner ? 'winner' : null }), seatName(s)));
        });
      } else {
        const talon = pub.talon || [];
        felt.appendChild(el('div', { class: 'label', style: { width: '100%' } },
          talon.length ? 'Talon' + (talon.every((c) => c === '?') ? ' (face down)' : '') : 'Phase: ' + pub.phase));
        if (talon.length) felt.appendChild(el('div', { class: 'cards', id: 'live-talon' }, talon.map((c) => T.cardElement(c, { small: true }))));
      }
    }

    function seatKey(s) {
      const open = (pub.shown && pub.shown[s]) || [];
      return [s === pub.dealer, s === pub.declarer, pub.contract, s === pub.partner, pub.tricks_won ? pub.tricks_won[s] : 0,
        pub.to_act === s, open.join(',')].join('|');
    }
    function seatNode(s) {
      const role = [];
      if (s === pub.dealer) role.push('dealer');
      if (s === pub.declarer) role.push('declarer' + (pub.contract ? ' (' + T.term(pub.contract) + ')' : ''));
      if (s === pub.partner && pub.partner >= 0) role.push('partner');
      const open = (pub.shown && pub.shown[s]) || [];
      return el('div', { class: 'seat' + (pub.to_act === s ? ' to-act' : ''), dataset: { seat: String(s) } },
        el('div', { class: 'seat-head' }, el('span', { class: 'name' }, 'Seat ' + (s + 1) + ' \u00b7 ', botLink(seatName(s))),
          role.length ? el('span', { class: 'role badge' }, role.join(', ')) : null,
          el('span', { class: 'muted' }, T.count(pub.tricks_won ? pub.tricks_won[s] : 0, 'trick')),
          pub.to_act === s ? el('span', { class: 'warn' }, 'to act') : null),
        open.length ? el('div', { class: 'cards' }, el('span', { class: 'muted' }, 'shown: '), open.map((c) => T.cardElement(c, { small: true }))) : null);
    }
    function drawSeats() {
      if (!pub) { clear(seatBox); drawn.seats = []; return; }
      if (seatBox.children.length !== pub.num_seats) { clear(seatBox); drawn.seats = []; }
      for (let s = 0; s < pub.num_seats; s++) {
        const key = seatKey(s);
        if (drawn.seats[s] === key) continue;
        drawn.seats[s] = key;
        const node = seatNode(s);
        if (seatBox.children[s]) seatBox.replaceChild(node, seatBox.children[s]); else seatBox.appendChild(node);
      }
    }

    function statusText() {
      if (!info) return '';
      if (info.withheld) return 'This deal is also played at other tables of its duplicate set: nothing of it is shown until every table has finished.';
      const parts = [hand >= 0 ? 'Hand ' + (hand + 1) + ' of ' + info.num_hands : 'Starting'];
      if (pub && pub.contract) parts.push(T.term(pub.contract) + (pub.called_king ? ', ' + T.cardPhrase(pub.called_king) + ' called' : ''));
      if (pub && pub.to_act >= 0) parts.push(seatName(pub.to_act) + ' to act');
      return parts.join(' \u00b7 ');
    }

    // The hands table: a row a hand appended; the last HAND_ROWS kept.
    const totals = names.map(() => 0);
    let handsDone = 0;
    let tbody = null; let totalCells = []; let earlier = null;
    function drawScores() {
      if (resetScores) { clear(scores); tbody = null; resetScores = false; }
      if (!pendingHands.length) return;
      if (!tbody) {
        earlier = el('tr', { class: 'muted earlier-hands', hidden: true }, el('td', { colspan: names.length + 1 }));
        tbody = el('tbody', null, earlier);
        totalCells = names.map(() => el('strong'));
        scores.append(el('h3', null, 'Hands played'), el('div', { class: 'table-wrap' }, el('table', { class: 'score-table' },
          el('thead', null, el('tr', null, el('th', null, 'Hand'), names.map((nm) => el('th', { class: 'num' }, nm)))), tbody,
          el('tfoot', null, el('tr', null, el('th', null, 'Total so far'), totalCells.map((c) => el('td', { class: 'num' }, c)))))));
      }
      const frag = document.createDocumentFragment();
      for (const h of pendingHands) {
        frag.appendChild(el('tr', null, el('th', null, String(h.hand + 1) + (h.redeal ? ' (void)' : '')),
          (h.scores || []).map((v) => el('td', { class: 'num' }, signed(v)))));
      }
      pendingHands.length = 0;
      tbody.appendChild(frag);
      while (tbody.children.length > HAND_ROWS + 1) tbody.removeChild(earlier.nextSibling);
      const hidden = tbody.children.length - 1 < handsDone ? handsDone - (tbody.children.length - 1) : 0;
      earlier.hidden = !hidden;
      if (hidden) earlier.firstChild.textContent = T.count(hidden, 'earlier hand') + ' in the total; every hand is in the record when the match is over.';
      totalCells.forEach((c, i) => { c.textContent = signed(totals[i]); });
    }

    function draw() {
      frame = 0;
      lastDraw = performance.now();
      state.renders++;
      state.drawn = { hand: at.hand, index: at.index };
      const text = statusText();
      if (text !== drawn.status) { status.textContent = text; drawn.status = text; }
      if (info && !!info.withheld !== play.hidden) { play.hidden = !!info.withheld; legend.hidden = !!info.withheld; withheld.hidden = !info.withheld; }
      if (handsHead && info && !info.withheld) {
        const h = hand >= 0 ? ' \u00b7 hand ' + (hand + 1) + ' of ' + info.num_hands : ' \u00b7 ' + T.count(info.num_hands, 'hand');
        if (h !== drawn.hands) { handsHead.textContent = h; drawn.hands = h; }
      }
      const fk = feltKey();
      if (fk !== drawn.felt) { drawn.felt = fk; drawFelt(); }
      drawSeats();
      if (resetLog) { clear(log); resetLog = false; }
      if (pendingLines.length) {
        const frag = document.createDocumentFragment();
        pendingLines.forEach((n) => frag.appendChild(n));
        pendingLines = [];
        log.appendChild(frag);
        while (log.children.length > LOG_LINES) log.removeChild(log.firstChild);
        logBox.scrollTop = logBox.scrollHeight;
      }
      drawScores();
    }

    function addLine(node) {
      pendingLines.push(node);
      if (pendingLines.length > LOG_LINES) pendingLines.splice(0, pendingLines.length - LOG_LINES);
    }

    function on(type, data) {
      if (!state.count) state.first = performance.now();  // when events began (live_bench.py)
      state.count++;
      state.events.push({ type, data });
      if (state.events.length > 2 * STATE_EVENTS) state.events.splice(0, state.events.length - STATE_EVENTS);
      if (type === 'match') { info = data; schedule(); return; }
      if (type === 'restart') {
        hand = -1; pub = null; lastTrick = null; trick = []; handActions.length = 0; at = { hand: -1, index: -2 };
        pendingLines = []; resetLog = true; pendingHands.length = 0; resetScores = true;
        handsDone = 0; totals.fill(0);
        schedule();
        return;
      }
      if (type === 'hand' || type === 'action') at = { hand: data.hand, index: data.index };
      if (type === 'hand') {
        hand = data.hand; pub = data.state; lastTrick = null; trick = [];
        pendingLines = []; resetLog = true;
        handActions.length = 0;
      } else if (type === 'action') {
        const before = pub;
        pub = data.state;
        handActions.push(data.action || '');
        const level = T.kontraLevels(handActions)[handActions.length - 1];
        addLine(el('li', null, el('span', { class: 'words' },
          T.actionWords(data.action || '', seatName(data.seat), { kontraLevel: level, hidden: true }))));
        if (data.action && data.action.startsWith('play ')) {
          trick.push(data.action.slice(5));
          lastTrick = null;
          if (!pub.trick || !pub.trick.length) {
            // The trick is complete: its winner is the seat whose count grew.
            let winner = pub.trick_leader;
            if (before && before.tricks_won && pub.tricks_won)
              pub.tricks_won.forEach((t, s) => { if (t > before.tricks_won[s]) winner = s; });
            const leader = before && before.trick && before.trick.length ? before.trick_leader : data.seat;
            lastTrick = { cards: trick, leader, winner };
            trick = [];
            addLine(el('li', { class: 'muted trick-won' }, 'Trick won by ' + seatName(winner)));
          }
        }
      } else if (type === 'hand_end') {
        handsDone++;
        (data.scores || []).forEach((v, i) => { totals[i] += v; });
        pendingHands.push(data);
        if (pendingHands.length > HAND_ROWS) pendingHands.splice(0, pendingHands.length - HAND_ROWS);
      } else if (type === 'end') {
        state.ended = data;
        return;
      }
      schedule();
    }

    if (!window.EventSource) { status.textContent = 'This browser cannot show a match live.'; return; }
    const source = new EventSource('/api/live/matches/' + encodeURIComponent(match.id));
    for (const type of ['match', 'restart', 'dropped', 'hand', 'action', 'hand_end']) {
      source.addEventListener(type, (e) => { try { on(type, JSON.parse(e.data || '{}')); } catch (x) { /* ignore a bad event */ } });
    }
    source.addEventListener('end', (e) => {
      let data = {};
      try { data = JSON.parse(e.data || '{}'); } catch (x) { /* keep {} */ }
      on('end', data);
      source.close();
      // The match is over (or not running): the viewer shows what may be shown now.
      if (data.status === 'not running') {
        // Queued (or run by another arena of the database): shown once it starts here.
        status.textContent = match.status === 'pending' ? 'Queued: shown here when it starts.' : 'Not being played on this arena right now.';
        const feed = new EventSource('/api/live');
        feed.addEventListener('started', (f) => {
          if (JSON.parse(f.data).id !== match.id) return;
          feed.close();
          box.remove();
          liveMatch(main, match, names);
        });
        return;
      }
      if (data.status !== 'done' && data.status !== 'failed') {
        // Stopped with the arena (it runs again after a restart), or refused.
        status.textContent = data.status === 'refused' ? 'Too many people are watching: try again later.'
          : 'The match stopped before its end; it runs again when the arena restarts.';
        return;
      }
      status.textContent = 'The match is over.';
      setTimeout(() => T.matchViewer(main, match.id), 300);
    });
    source.onerror = () => { if (source.readyState === 2) status.textContent = 'The live stream closed.'; };
  }

  // The home page's "Being played now": kept by the live feed.
  function liveList() {
    const body = el('div', { id: 'live-list' }, el('p', { class: 'muted' }, 'No match is being played.'));
    const box = el('div', { class: 'panel' }, el('h2', null, el('span', { class: 'live-dot' }), 'Being played now'), body);
    if (!window.EventSource) return box;
    const running = new Map();
    function render() {
      clear(body);
      if (!running.size) { body.appendChild(el('p', { class: 'muted' }, 'No match is being played.')); return; }
      const list = Array.from(running.values()).sort((a, b) => b.started_ms - a.started_ms).slice(0, 20);
      body.appendChild(el('ul', { class: 'live-matches' }, list.map((m) => el('li', null,
        el('a', { href: '/matches/' + encodeURIComponent(m.id), class: 'mono' }, m.id), ' \u00b7 ', m.variant, ' \u00b7 ',
        (m.bots || []).map((b, i) => [i ? ', ' : '', botLink(b)]).flat(),
        m.withheld ? el('span', { class: 'muted' }, ' (duplicate: shown when every table has finished)') : ''))));
      if (running.size > 20) body.appendChild(el('p', { class: 'muted' }, 'and ' + (running.size - 20) + ' more'));
    }
    const source = new EventSource('/api/live');
    source.addEventListener('running', (e) => { running.clear(); JSON.parse(e.data).forEach((m) => running.set(m.id, m)); render(); });
    source.addEventListener('started', (e) => { const m = JSON.parse(e.data); running.set(m.id, m); render(); });
    source.addEventListener('finished', (e) => { running.delete(JSON.parse(e.data).id); render(); });
    return box;
  }

  // A tournament page: calls `refresh` (debounced) when one of its matches ends.
  function liveTournament(id, refresh) {
    if (!window.EventSource) return;
    const source = new EventSource('/api/live');
    let timer = null;
    const mine = (e) => {
      const m = JSON.parse(e.data);
      if (String(m.tournament_id) !== String(id)) return;
      clearTimeout(timer);
      timer = setTimeout(() => { source.close(); refresh(); }, 500);
    };
    // A match of it finished, or waits for a benched bot: the page is read again.
    source.addEventListener('finished', mine);
    source.addEventListener('waiting', mine);
  }

  // A tournament's matches waiting for a benched bot (t.waiting), as a notice.
  function tournamentWaiting(t) {
    if (!t.waiting || !t.waiting.length) return '';
    return el('div', { class: 'notice', id: 'tournament-waiting' }, el('strong', null, 'Waiting: '),
      el('ul', null, t.waiting.map((w) => el('li', null, w))));
  }

  Object.assign(T, { liveMatch, liveList, liveTournament, tournamentWaiting });
})();
