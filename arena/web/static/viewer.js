// The match viewer: every hand of a match record step by step, as the engine
// replays it (GET /api/matches/ID/hands/K/replay), so no rule is reimplemented
// here. /matches/ID?hand=K&action=N opens it at hand K (1-based, as the tabs
// show it; an old link's hand=0 is hand 1) after N actions; without them it
// opens at the start of hand 1, and the scores of a hand show only once its
// end is reached (no spoilers). The match's result is folded away until asked.
// Keys: Right/Left step, Home/End start/end of the hand, Up/Down previous/next
// trick, PageUp/PageDown (or [ and ]) previous/next hand.
(function () {
  'use strict';
  const T = window.tarock;
  const { el, clear, api, signed, num, botLink, badge } = T;

  // The deal's seal (docs/security.md, "Secret deals"): the commitment made
  // when the match was scheduled, and once every table has played the deal
  // the seed and salt that open it.
  function dealSeal(match) {
    if (!match.seed_commitment) return match.deal_public ? el('div', { class: 'sub mono' }, 'seed ' + match.seed) : '';
    const short = match.seed_commitment.slice(0, 16) + '\u2026';
    if (!match.deal_public)
      return el('div', { class: 'sub', id: 'deal-seal' }, 'deal sealed \u00b7 commitment ',
        el('span', { class: 'mono', title: match.seed_commitment }, short));
    return el('div', { class: 'sub', id: 'deal-seal' }, 'seed ', el('span', { class: 'mono' }, String(match.seed)),
      ' \u00b7 salt ', el('span', { class: 'mono' }, match.seed_salt),
      ' \u00b7 commitment ', el('span', { class: 'mono', title: 'printf \'tarock-seed:v1:' + match.seed + ':' +
        match.seed_salt + '\' | sha256sum' }, short));
  }

  // A hosted seat's standard error, for the bot's owner (docs/hosting.md):
  // the owner picks the bot and pastes its token, which stays in this page:
  // it is sent only as the Authorization header of
  // GET /api/matches/ID/stderr?bot=NAME, never put in a URL or stored. The
  // log holds the bot's own cards, so the arena answers 409 until the deal
  // is public (every table that plays it has finished): said in a sentence.
  // Shown while the match is pending or running (its seats' versions are
  // known once it is done) and for a done match with a hosted seat.
  // `kept`: the panel of this match already on the page (the live page turns
  // into the record when the match ends): it stays, with the token typed and
  // the answer shown.
  // `hostedBots`: the names of the hosted bots (a running match's seats
  // have no version yet): only their seats are offered.
  function stderrPanel(match, seats, kept, hostedBots) {
    const live = match.status === 'pending' || match.status === 'running';
    const hosted = seats.filter((s) => Number(s.version_id) > 0 || (live && hostedBots && hostedBots.has(s.bot)));
    if (!hosted.length && !(live && !hostedBots)) return '';
    if (kept && kept.dataset.match === String(match.id)) return kept;
    const bots = [...new Set((hosted.length ? hosted : seats).map((s) => s.bot))];
    const bot = el('select', { id: 'stderr-bot' }, bots.map((b) => el('option', { value: b }, b)));
    const token = el('input', { type: 'password', id: 'stderr-token', autocomplete: 'off', placeholder: 'the bot\u2019s token', size: 28 });
    const result = el('div', { id: 'stderr-result', role: 'status' });
    async function show(ev) {
      ev.preventDefault();
      const name = bot.value;
      if (!token.value.trim()) { clear(result).appendChild(T.errorBox('Paste the bot\u2019s token first.')); return; }
      clear(result).append(el('span', { class: 'muted' }, 'Asking the arena\u2026'));
      let res; let text = '';
      try {
        res = await fetch('/api/matches/' + encodeURIComponent(match.id) + '/stderr?bot=' + encodeURIComponent(name),
          { headers: { Authorization: 'Bearer ' + token.value.trim() }, cache: 'no-store' });
        text = await res.text();
      } catch (e) { clear(result).appendChild(T.errorBox('The arena does not answer (' + e.message + ')')); return; }
      let error = '';
      if (!res.ok) { try { error = JSON.parse(text).error || ''; } catch (e) { error = ''; } }
      if (res.status === 409) {
        clear(result).append(el('div', { class: 'notice', id: 'stderr-wait' },
          'This deal is still being played (at this table or at another table dealt the same cards), and ' + name +
          '\u2019s standard error shows its own cards: it is shown here once every table has finished. Try again then.'));
        return;
      }
      if (res.status === 401 || res.status === 403) { clear(result).appendChild(T.errorBox('Refused: that is not ' + name + '\u2019s token.')); return; }
      if (res.status === 404) {
        clear(result).appendChild(T.errorBox('No standard error of ' + name + ' in this match' + (error ? ' (' + error + ')' : '') +
          ': only a seat a bot host played has one, and it arrives when the seat ends.'));
        return;
      }
      if (!res.ok) { clear(result).appendChild(T.errorBox('Refused: ' + (error || ('HTTP ' + res.status)))); return; }
      clear(result).append(el('div', { class: 'sub' }, name + '\u2019s standard error in this match (' + String(text.length) + ' bytes; the end of it, at most 64 KiB)'),
        text ? el('pre', { class: 'stderr-log', id: 'stderr-log' }, text) : el('p', { class: 'muted', id: 'stderr-log' }, 'It wrote nothing to standard error.'));
    }
    return el('div', { class: 'panel', id: 'seat-stderr', dataset: { match: String(match.id) } },
      el('h2', null, 'Standard error of a hosted seat'),
      el('form', { class: 'upload-form', id: 'stderr-form', onsubmit: show },
        el('label', null, 'Bot ', bot), el('label', null, 'Token ', token),
        el('button', { type: 'submit', id: 'stderr-button' }, 'Show')),
      result,
      el('p', { class: 'legend' }, 'For the bot\u2019s owner: what a hosted bot wrote to standard error at this table. The token is sent only to the arena\u2019s API, never put in the address or kept.'));
  }

  function waitForDeal(main, id) {
    const shown = window.location.pathname;
    const timer = setInterval(async () => {
      if (window.location.pathname !== shown) { clearInterval(timer); return; }
      if (document.hidden) return;
      let m;
      try { m = await api('/api/matches/' + encodeURIComponent(id)); } catch (e) { return; }
      if (!m.deal_public) return;
      clearInterval(timer);
      if (window.location.pathname === shown) matchViewer(main, id);
    }, 3000);
  }

  async function matchViewer(main, id) {
    T.nav('matches');
    let match;
    try { match = await api('/api/matches/' + encodeURIComponent(id)); } catch (e) {
      if (e.status === 404) { T.notFound(main, 'There is no match ' + id + '.'); return; }
      throw e;
    }
    document.title = 'Match ' + match.id + ' \u00b7 Tarock Arena';
    const keptStderr = document.getElementById('seat-stderr');
    const rec = match.record;
    const seats = (match.seats || []).slice().sort((a, b) => a.seat - b.seat);
    // Names, not seat numbers; a bot that sits twice (a play match) gets "(2nd)".
    const names = seats.map((s, i) => {
      const before = seats.slice(0, i).filter((x) => x.bot === s.bot).length;
      return before ? s.bot + ' (' + (before + 1) + (before === 1 ? 'nd' : before === 2 ? 'rd' : 'th') + ')' : s.bot;
    });
    // What the bot said in its Hello (the record's seats), shown as its version.
    const helloOf = (r, seat) => {
      const h = r && Array.isArray(r.seats) ? r.seats[seat] : null;
      return h && h.hello_version ? el('span', { class: 'muted', title: 'Hello: ' + (h.hello_name || '') + ' ' + h.hello_version },
        ' ' + h.hello_version) : '';
    };
    clear(main);
    main.append(el('div', { class: 'page-head' }, el('div', null, el('h1', null, 'Match ', el('span', { class: 'mono' }, match.id)),
      el('div', { class: 'sub' }, T.variantLink(match.variant), ' \u00b7 ', badge(match.kind, match.kind), ' ', badge(match.status, match.status),
        // A running match's hands are counted by its live panel (live.js), not the store.
        el('span', { id: 'match-hands' }, match.status === 'running' || match.status === 'pending' ? '' : ' \u00b7 ' + T.count(match.hands, 'hand')),
        match.referee ? ' \u00b7 referee ' + match.referee : ''),
      dealSeal(match)),
    el('div', { class: 'cards' }, seats.map((s) => el('span', { class: 'badge', style: { margin: '0 .2rem' } },
      botLink(s.bot), helloOf(rec, s.seat),
      s.faults ? el('span', { class: 'bad' }, ' \u26a0 ' + s.faults + ' faults') : '', s.forfeited ? ' (forfeited)' : '')))));
    if (!rec || !Array.isArray(rec.deals)) {
      if ((match.status === 'running' || match.status === 'pending') && T.liveMatch) {
        let hostedBots = null;
        try { hostedBots = new Set(((await api('/api/bots')).bots || []).filter((b) => b.hosted).map((b) => b.name)); } catch (e) { hostedBots = null; }
        T.liveMatch(main, match, names);
        main.append(stderrPanel(match, seats, keptStderr, hostedBots));
        return;
      }
      main.append(el('div', { class: 'notice' }, match.status === 'failed' ? 'This match failed: ' + match.error
        : match.status === 'done' && !match.deal_public
          ? 'This deal is still being played at another table of its duplicate set; its record and its result (totals, places, faults) are shown when every table has finished.'
          : 'This match has no record yet (status ' + match.status + ').'), stderrPanel(match, seats, keptStderr));
      // A finished table of a duplicate set turns into its record once the
      // set's last table has finished (asked again every 3 s while shown).
      if (match.status === 'done' && !match.deal_public) waitForDeal(main, match.id);
      return;
    }
    const deals = rec.deals;
    const q = T.params();
    // 1-based as shown; hand=0 (an old 0-based link to the first hand) is hand 1.
    let hand = Math.min(Math.max(0, (Number(q.get('hand')) || 1) - 1), deals.length - 1);
    let pos = Number(q.get('action'));
    let replay = null;
    const cache = {};

    const tabs = el('div', { class: 'hand-tabs', id: 'hand-tabs' });
    const btn = (label, title, fn, idAttr) => el('button', { type: 'button', class: 'secondary', title, onclick: () => { stopWatch(); fn(); }, id: idAttr }, label);
    const posInfo = el('span', { class: 'pos', id: 'pos' });
    // Watch: the record played forward by itself, an action every
    // WATCH_MS / speed (a trick stays on the felt a little longer), hand
    // after hand (?watch=1 starts it; any other control stops it).
    const WATCH_MS = 900;
    let watching = null;
    const watchBtn = el('button', { type: 'button', id: 'btn-watch', title: 'play the match forward by itself (Space)',
      onclick: () => (watching ? stopWatch() : startWatch()) }, '\u25b6 watch');
    const speed = el('select', { id: 'watch-speed', title: 'speed', 'aria-label': 'speed' },
      [['0.5', '\u00bd\u00d7'], ['1', '1\u00d7'], ['2', '2\u00d7'], ['4', '4\u00d7']].map(([v, t]) => el('option', { value: v }, t)));
    speed.value = '1';
    let watchGen = 0;  // a tick of an earlier watch (stopped while it awaited a hand) ends there
    function stopWatch() {
      clearTimeout(watching);
      watching = null;
      watchGen++;
      watchBtn.textContent = '\u25b6 watch';
      watchBtn.classList.remove('active');
    }
    function startWatch() {
      watchBtn.textContent = '\u275a\u275a pause';
      watchBtn.classList.add('active');
      const gen = ++watchGen;
      const tick = async () => {
        if (gen !== watchGen) return;
        if (!replay) { watching = setTimeout(tick, 200); return; }
        if (pos < replay.steps.length) {
          const done = pos > 0 && replay.steps[pos - 1].trick_done;
          go(pos + 1, true);
          watching = setTimeout(tick, (done ? 1.8 : 1) * WATCH_MS / Number(speed.value));
        } else if (hand + 1 < deals.length) {
          await openHand(hand + 1, 0, true);
          if (gen !== watchGen) return;
          watching = setTimeout(tick, 2 * WATCH_MS / Number(speed.value));
        } else stopWatch();
      };
      watching = setTimeout(tick, 300);
    }
    const link = el('a', { id: 'permalink', href: '#' }, 'link to this moment');
    const controls = el('div', { class: 'controls' },
      btn('\u00ab start', 'start of the hand (Home)', () => go(0), 'btn-start'),
      btn('\u21e4 trick', 'previous trick (Up)', () => go(trickJump(-1)), 'btn-prev-trick'),
      btn('\u25c0', 'back (Left)', () => go(pos - 1), 'btn-back'),
      btn('\u25b6', 'forward (Right)', () => go(pos + 1), 'btn-forward'),
      btn('trick \u21e5', 'next trick (Down)', () => go(trickJump(1)), 'btn-next-trick'),
      btn('end \u00bb', 'end of the hand (End)', () => go(replay.steps.length), 'btn-end'),
      btn('\u2190 hand', 'previous hand (PageUp or [)', () => openHand(hand - 1, 0), 'btn-prev-hand'),
      btn('hand \u2192', 'next hand (PageDown or ])', () => openHand(hand + 1, 0), 'btn-next-hand'),
      watchBtn, speed, posInfo, link);
    const seatBox = el('div', { class: 'seats', id: 'seats' });
    const felt = el('div', { class: 'table-felt', id: 'felt' });
    const log = el('div', { class: 'actions-log', id: 'log' });
    const score = el('div', { class: 'scoreline', id: 'scoreline' });
    main.append(el('div', { class: 'panel' }, tabs, controls,
      el('div', { class: 'viewer' }, el('div', null, felt, seatBox),
        el('div', null, el('h3', null, 'Actions'), log))),
    el('div', { class: 'panel' }, el('h2', { id: 'scoring-title' }, 'Scoring'), score),
    resultPanel(), stderrPanel(match, seats, keptStderr),
    el('p', { class: 'legend' }, 'Keys: ', el('span', { class: 'kbd' }, '\u2190'), ' ', el('span', { class: 'kbd' }, '\u2192'), ' step, ',
      el('span', { class: 'kbd' }, 'Home'), ' ', el('span', { class: 'kbd' }, 'End'), ' start and end of the hand, ',
      el('span', { class: 'kbd' }, '\u2191'), ' ', el('span', { class: 'kbd' }, '\u2193'), ' trick, ',
      el('span', { class: 'kbd' }, '['), ' ', el('span', { class: 'kbd' }, ']'), ' hand. Every hand is shown face up, as spectators see it after the game; ',
      'a dashed card is a discard the other players did not see; red marks a fault and the fallback action the referee played.'));

    // Hand tabs with the running totals; a long match (more than MAX_TABS
    // hands) gets one list to choose from instead of a wall of tabs.
    const MAX_TABS = 24;
    const handSelect = deals.length > MAX_TABS ? el('select', { id: 'hand-select', 'aria-label': 'hand',
      onchange: () => openHand(Number(handSelect.value), 0) }, deals.map((d, k) => el('option', { value: String(k) },
      (d.redeal ? 'void ' : 'Hand ') + (k + 1) + ' of ' + deals.length + ((d.faults || []).length ? ' \u26a0 ' + d.faults.length + ' faults' : '')))) : null;
    if (handSelect) tabs.append(el('label', null, 'Hand ', handSelect));
    if (!handSelect) deals.forEach((d, k) => {
      const hasFault = (d.faults || []).length > 0;
      const label = (d.redeal ? 'void ' : 'Hand ') + (k + 1);
      tabs.appendChild(el('a', { href: '?hand=' + (k + 1), class: hasFault ? 'has-fault' : null, dataset: { hand: String(k) },
        title: hasFault ? (d.faults.length + ' faults') : null,
        onclick: (e) => { e.preventDefault(); openHand(k, 0); } }, label, hasFault ? ' \u26a0' : ''));
    });

    document.addEventListener('keydown', (e) => {
      if (e.target && /INPUT|SELECT|TEXTAREA/.test(e.target.tagName)) return;
      if (!replay) return;
      const keys = { ArrowRight: () => go(pos + 1), ArrowLeft: () => go(pos - 1), Home: () => go(0),
        End: () => go(replay.steps.length), ArrowUp: () => go(trickJump(-1)), ArrowDown: () => go(trickJump(1)),
        PageUp: () => openHand(hand - 1, 0), PageDown: () => openHand(hand + 1, 0), '[': () => openHand(hand - 1, 0), ']': () => openHand(hand + 1, 0) };
      if (e.key === ' ') { e.preventDefault(); if (watching) stopWatch(); else startWatch(); return; }
      if (keys[e.key]) { e.preventDefault(); stopWatch(); keys[e.key](); }
    });

    function trickJump(dir) {
      const steps = replay.steps;
      if (dir > 0) {
        for (let i = pos + 1; i <= steps.length; i++) if (steps[i - 1].trick_done) return i;
        return steps.length;
      }
      for (let i = pos - 1; i >= 1; i--) if (steps[i - 1].trick_done) return i;
      return 0;
    }

    async function openHand(k, at, auto) {
      if (k < 0 || k >= deals.length) return;
      if (!auto && watching) stopWatch();
      hand = k;
      if (handSelect) handSelect.value = String(k);
      else Array.from(tabs.children).forEach((a, i) => a.classList.toggle('active', i === k));
      try {
        replay = cache[k] || (cache[k] = await api('/api/matches/' + encodeURIComponent(match.id) + '/hands/' + k + '/replay'));
      } catch (e) {
        clear(log).appendChild(T.errorBox('This hand does not replay: ' + e.message));
        return;
      }
      renderLog();
      go(at === undefined || Number.isNaN(at) ? 0 : at);
    }

    function seatName(s) { return s >= 0 && s < names.length ? names[s] : 'seat ' + s; }

    // The result of the match, folded away (a spoiler): per seat the sum of
    // its hand scores, the end-of-match settlement where one applies (100 off
    // per radl left), the total and the place. total = hands + settlement.
    function resultPanel() {
      if (match.status !== 'done') return null;
      const handSum = new Array(seats.length).fill(0);
      deals.forEach((d) => (d.scores || []).forEach((v, s) => { handSum[s] += v; }));
      const settlement = seats.map((st, i) => Number(st.total) - handSum[i]);
      const cell = (v, strong) => el('td', { class: 'num' }, strong ? el('strong', null, signed(v)) : signed(v));
      return el('details', { class: 'panel result-panel', id: 'match-result' },
        el('summary', null, 'Result of the match (opens the ending)'),
        el('div', { class: 'table-wrap' }, el('table', { class: 'grid', id: 'result-table' },
          el('thead', null, el('tr', null, el('th', null, ''), names.map((nm) => el('th', { class: 'num' }, nm)))),
          el('tbody', null,
            el('tr', null, el('th', null, 'Hands (' + deals.length + ')'), handSum.map((v) => cell(v))),
            settlement.some((v) => v) ? el('tr', { class: 'settlement', id: 'settlement-row' },
              el('th', { title: 'the variant\u2019s end-of-match rule, e.g. 100 off per radl left' }, 'Radl settlement'),
              settlement.map((v) => cell(v))) : null,
            el('tr', { class: 'total-row' }, el('th', null, 'Total'), seats.map((st) => cell(st.total, true))),
            el('tr', null, el('th', null, 'Place'), seats.map((st) => el('td', { class: 'num' }, String(st.rank + 1))))))),
        el('p', { class: 'legend' }, 'Total = the hands\u2019 scores + the settlement; places come from the totals.'));
    }
    function faultAt(i) { return (deals[hand].faults || []).filter((f) => f.action_index === i); }

    function renderLog() {
      const d = deals[hand];
      const ol = el('ol', { start: '1' });
      const levels = T.kontraLevels(replay.steps.map((x) => x.action));
      replay.steps.forEach((st, i) => {
        const fs = faultAt(i);
        const ms = d.decision_ms && d.decision_ms[i] !== undefined ? d.decision_ms[i] + ' ms' : '';
        const li = el('li', { class: [fs.length ? 'fault' : '', st.trick_done ? 'trick-end' : ''].join(' ').trim() || null,
          dataset: { i: String(i + 1) }, title: ms ? 'decision time ' + ms : null, onclick: () => go(i + 1) },
        el('span', { class: 'words' }, T.actionWords(st.action, seatName(st.seat), { kontraLevel: levels[i] })),
        st.hidden ? el('span', { class: 'muted' }, ' (hidden)') : null,
        fs.map((f) => el('div', { class: 'bad' }, '\u26a0 ' + f.kind + (f.detail ? ': ' + f.detail : '') + ' \u2014 fallback ' + f.fallback_action)),
        st.trick_done ? el('div', { class: 'muted' }, 'trick ' + (countTricks(i) ) + ' won by ' + seatName(st.trick_done.winner)) : null);
        ol.appendChild(li);
      });
      clear(log).appendChild(ol);
      log.appendChild(el('p', { class: 'muted', id: 'log-empty' }, 'Nothing played yet: step forward with \u2192 or \u25b6.'));
    }
    function countTricks(i) { let n = 0; for (let k = 0; k <= i; k++) if (replay.steps[k].trick_done) n++; return n; }

    function go(p) {
      if (!replay) return;
      pos = Math.max(0, Math.min(replay.steps.length, Number.isFinite(p) ? p : replay.steps.length));
      const st = pos === 0 ? replay.initial : replay.steps[pos - 1];
      const url = '/matches/' + encodeURIComponent(match.id) + '?hand=' + (hand + 1) + '&action=' + pos;
      link.href = url;
      history.replaceState(null, '', url);
      posInfo.textContent = 'hand ' + (hand + 1) + ' of ' + deals.length + ' \u00b7 action ' + pos + ' of ' + replay.steps.length +
        ' \u00b7 ' + st.phase;
      const empty = document.getElementById('log-empty');
      if (empty) empty.style.display = pos === 0 ? '' : 'none';
      Array.from(log.querySelectorAll('li')).forEach((li, i) => {
        li.classList.toggle('current', i === pos - 1);
        li.classList.toggle('future', i >= pos);
      });
      const cur = log.querySelector('li.current');
      if (cur && log.scrollHeight > log.clientHeight) log.scrollTop = cur.offsetTop - log.clientHeight / 2;
      renderTable(st);
      renderScore();
    }

    function roleOf(s, st) {
      const r = [];
      if (s === replay.dealer) r.push('dealer');
      if (st.declarer === s) r.push('declarer' + (st.contract ? ' (' + T.term(st.contract) + ')' : ''));
      if (pos === replay.steps.length && replay.report.partner === s && replay.report.partner >= 0) r.push('partner');
      return r.join(', ');
    }

    function renderTable(st) {
      const lastAction = pos > 0 ? replay.steps[pos - 1] : null;
      // The felt: the trick in play (or the trick this action completed), the talon.
      clear(felt);
      let trickCards = st.trick || [];
      let leader = st.trick_leader;
      let winner = -1;
      if (lastAction && lastAction.trick_done) {
        trickCards = lastAction.trick_done.cards;
        leader = lastAction.trick_done.leader;
        winner = lastAction.trick_done.winner;
      }
      const n = replay.num_seats;
      if (trickCards.length) {
        felt.appendChild(el('div', { class: 'label', style: { width: '100%' } }, winner >= 0 ? 'Trick won by ' + seatName(winner) : 'Trick'));
        trickCards.forEach((c, i) => {
          const s = (leader + i) % n;
          felt.appendChild(el('div', { class: 'slot' }, T.cardElement(c, { mark: s === winner ? 'winner' : null }), seatName(s)));
        });
      } else {
        const d = deals[hand];
        const talon = d.talon || [];
        const taken = replay.steps.slice(0, pos).find((x) => x.action.startsWith('talon '));
        let groups = 0;
        if (taken) {
          const idx = replay.steps.indexOf(taken);
          const before = idx === 0 ? replay.initial : replay.steps[idx - 1];
          groups = (before.legal || []).filter((a) => a.startsWith('talon ')).length;
        }
        felt.appendChild(el('div', { class: 'label', style: { width: '100%' } },
          talon.length ? 'Talon' + (taken ? ' \u2014 ' + T.actionWords(taken.action, seatName(taken.seat)) + (groups ? ' of ' + groups : '') : '') : (st.phase === 'over' ? 'Hand over' : 'Phase: ' + st.phase)));
        const size = groups ? Math.max(1, Math.round(talon.length / groups)) : talon.length;
        for (let g = 0; g * size < talon.length; g++) {
          const chosen = taken && Number(taken.action.split(' ')[1]) === g;
          felt.appendChild(el('div', { class: 'slot' }, el('div', { class: 'cards' }, talon.slice(g * size, (g + 1) * size).map((c) =>
            T.cardElement(c, { small: true, mark: chosen ? 'current' : null }))), groups ? 'group ' + (g + 1) + (chosen ? ' (taken)' : '') : ''));
        }
      }
      // Seats with their hands at this moment.
      clear(seatBox);
      for (let s = 0; s < n; s++) {
        const cards = T.sortCards(st.hands[s] || []);
        const role = roleOf(s, st);
        seatBox.appendChild(el('div', { class: 'seat' + (st.to_act === s ? ' to-act' : ''), dataset: { seat: String(s) } },
          el('div', { class: 'seat-head' }, el('span', { class: 'name' }, seats[s] ? [botLink(seats[s].bot), seatName(s).slice(seats[s].bot.length)] : seatName(s)),
            role ? el('span', { class: 'role badge' }, role) : null,
            el('span', { class: 'muted' }, T.count(st.tricks_won ? st.tricks_won[s] : 0, 'trick')),
            st.to_act === s ? el('span', { class: 'warn' }, 'to act') : null),
          el('div', { class: 'cards' }, cards.length ? cards.map((c) => T.cardElement(c, {
            mark: lastAction && lastAction.seat === s && lastAction.action === 'play ' + c ? 'current' : null })) : el('span', { class: 'muted' }, 'no cards'))));
      }
    }

    function renderScore() {
      const r = replay.report;
      const d = deals[hand];
      document.getElementById('scoring-title').textContent = 'Scoring of hand ' + (hand + 1);
      clear(score);
      if (pos < replay.steps.length) {
        score.appendChild(el('p', { class: 'scores-later', id: 'scores-later' },
          'The scores of this hand show when you reach its end (End key or \u201cend \u00bb\u201d).'));
        return;
      }
      if (!r.finished) { score.appendChild(el('p', { class: 'muted' }, 'This hand did not finish.')); return; }
      const rows = [];
      const row = (k, ...v) => rows.push(el('tr', null, el('th', null, k), el('td', { class: 'wrap' }, v)));
      if (r.redeal) row('Deal', 'void deal' + (d.counts_as_hand ? ' (counts as a hand)' : ' (dealt again)'));
      row('Contract', r.contract || '\u2013', r.declarer >= 0 ? ' by ' + seatName(r.declarer) : '',
        r.partner >= 0 ? ', partner ' + seatName(r.partner) : '', r.declarer >= 0 ? (r.declarer_won ? ' \u2014 won' : ' \u2014 lost') : '');
      const cp = r.card_points || [];
      if (cp.length === 2 && r.declarer >= 0) {
        row('Card points', 'declarer\u2019s side ' + cp[0] + ', defenders ' + cp[1]);
        row('Difference', signed(cp[0] - (cp[0] + cp[1]) / 2, 0) + ' (from half of ' + (cp[0] + cp[1]) + ')');
      } else if (cp.length) {
        row('Card points', cp.map((p, s) => seatName(s) + ' ' + p).join(', '));
      }
      if (r.game_kontra_level) row('Kontra on the game', 'level ' + r.game_kontra_level + ' (\u00d7' + Math.pow(2, r.game_kontra_level) + ')');
      if ((r.bonuses || []).length) {
        row('Bonuses', el('div', null, r.bonuses.map((b) => el('div', null, b.name + ' \u2014 ' + (b.seat !== undefined ? seatName(b.seat) : b.side) +
          (b.announcer >= 0 ? ', announced by ' + seatName(b.announcer) : ', silent') + (b.won ? ', won' : ', lost') +
          (b.kontra_level ? ', kontra \u00d7' + Math.pow(2, b.kontra_level) : '') + ': ' + signed(b.value)))));
      }
      (r.penalties || []).forEach((p) => row('Penalty', seatName(p.seat) + ': ' + p.reason + ' ' + signed(p.points)));
      if ((r.radli || []).some((x) => x) || (d.radli || []).some((x) => x)) {
        const before = (d.radli && d.radli.length) ? d.radli : new Array(replay.num_seats).fill(0);
        row('Radli', 'before ' + before.join(' / ') + ', after ' + (r.radli || []).join(' / '));
      }
      if (r.tricks) row('Tricks', r.tricks.map((t, s) => seatName(s) + ' ' + t).join(', '));
      score.appendChild(el('table', { class: 'grid' }, el('tbody', null, rows)));
      // Scores of the hand and the running totals.
      const totals = new Array(replay.num_seats).fill(0);
      for (let k = 0; k <= hand; k++) (deals[k].scores || []).forEach((v, s) => { totals[s] += v; });
      score.appendChild(el('h3', null, 'Scores'));
      score.appendChild(el('div', { class: 'table-wrap' }, el('table', { class: 'grid', id: 'hand-scores' },
        el('thead', null, el('tr', null, el('th', null, ''), names.map((nm) => el('th', { class: 'num' }, nm)))),
        el('tbody', null,
          el('tr', null, el('th', null, 'This hand'), (r.scores || []).map((v) => el('td', { class: 'num' }, el('strong', null, signed(v))))),
          el('tr', null, el('th', null, 'Hands so far'), totals.map((v) => el('td', { class: 'num' }, signed(v)))),
          hand === deals.length - 1 && match.status === 'done' && seats.some((st, i) => Number(st.total) !== totals[i])
            ? [el('tr', { class: 'settlement' }, el('th', { title: 'the variant\u2019s end-of-match rule, e.g. 100 off per radl left' }, 'Radl settlement'),
              seats.map((st, i) => el('td', { class: 'num' }, signed(Number(st.total) - totals[i])))),
            el('tr', { class: 'total-row' }, el('th', null, 'Match total'),
              seats.map((st) => el('td', { class: 'num' }, el('strong', null, signed(st.total)))))] : null))));
    }

    await openHand(hand, Number.isFinite(pos) && q.get('action') !== null ? pos : 0);
    if (q.get('watch')) startWatch();
  }

  T.matchViewer = matchViewer;
})();
