// Tarock Arena pages: one script renders the page of the current path (the
// server returns the same shell for every page URL). Every value from the store
// goes into the DOM as text (el/textContent), never as HTML.
(function () {
  'use strict';
  const T = window.tarock;
  const { el, clear, api, num, signed, int, botLink, matchLink, badge, table, poll } = T;
  const main = document.getElementById('main');
  let stopPolling = null;

  function setTitle(t) { document.title = t + ' \u00b7 Tarock Arena'; }
  function head(title, sub, extra) {
    return el('div', { class: 'page-head' }, el('div', null, el('h1', null, title),
      sub ? el('div', { class: 'sub' }, sub) : null), extra || null);
  }
  function tile(label, value, id) {
    return el('div', { class: 'tile' }, el('div', { class: 'value', id: id || null }, value),
      el('div', { class: 'label' }, label));
  }
  function wrap(node) { return el('div', { class: 'table-wrap' }, node); }
  function showError(e) {
    if (e && e.status === 404) { T.notFound(main, e.message); return; }
    clear(main).appendChild(T.errorBox('Could not load this page: ' + (e && e.message)));
  }
  function displayOf(r) { return r ? r.display : null; }
  function finishedAgo(m) {
    if (!m.finished_at) return '';
    const t = Date.parse(m.finished_at.replace(' ', 'T') + 'Z');
    return Number.isNaN(t) ? m.finished_at : T.ago(t / 1000);
  }
  function seatsCell(m) {
    const seats = (m.seats || []).slice().sort((a, b) => a.seat - b.seat);
    return el('span', { class: 'seats-cell' }, seats.map((s, i) => [i ? ', ' : '', el('span', { class: 'seat-chip' },
      botLink(s.bot), m.status === 'done' ? el('span', { class: 'muted' }, ' ' + signed(s.total)) : null,
      s.faults ? el('span', { class: 'bad', title: s.faults + ' faults' }, ' \u26a0' + s.faults) : null)]));
  }
  function kindCell(m) {
    let label = m.kind;
    let href = null;
    if (m.kind === 'tournament' && Number(m.tournament_id)) { label = 'tournament ' + m.tournament_id; href = '/tournaments/' + m.tournament_id; }
    if (m.kind === 'ladder' && Number(m.ladder_id)) label = 'ladder ' + m.ladder_id;
    if (m.kind === 'test' && Number(m.test_id)) { label = 'test ' + m.test_id; href = '/tests/' + m.test_id; }
    const b = badge(label, m.kind);
    return href ? el('a', { href }, b) : b;
  }
  function matchRows(matches) {
    return matches.map((m) => ({
      data: m,
      cells: [matchLink(m.id), T.variantLink(m.variant), kindCell(m), badge(m.status, m.status), seatsCell(m),
        int(m.hands), m.status === 'done' ? num(m.duration_s, 1) + ' s' : '', finishedAgo(m)],
    }));
  }
  const MATCH_COLUMNS = [{ label: 'Match' }, { label: 'Variant' }, { label: 'Kind' }, { label: 'Status' },
    { label: 'Seats (total)', cls: 'wrap' }, { label: 'Hands', cls: 'num' }, { label: 'Time', cls: 'num hide-sm' },
    { label: 'Finished', cls: 'hide-sm' }];

  // ---- home ------------------------------------------------------------------
  async function home() {
    T.nav('home');
    setTitle('Home');
    clear(main).append(head('Tarock Arena', 'Bots playing Central European Tarock: ladders, tournaments and every game to watch.'));
    const tiles = el('div', { class: 'tiles' },
      tile('matches per minute', '\u2013', 'mpm'), tile('referees available', '\u2013', 'refs'),
      tile('running / queued', '\u2013', 'running'), tile('matches done', '\u2013', 'done'),
      tile('failed', '\u2013', 'failed'));
    const variants = el('div', { class: 'panel' }, el('h2', null, 'Variants'), el('div', { id: 'variants' }));
    const recent = el('div', { class: 'panel' }, el('h2', null,
      el('span', { class: 'live-dot' }), 'Last finished matches'), el('div', { id: 'recent' }));
    main.append(tiles, T.liveList ? T.liveList() : '', variants, recent);
    stopPolling = poll(async () => {
      const [st, ladders, tours, last] = await Promise.all([api('/api/status'), api('/api/ladders'),
        api('/api/tournaments?limit=200'), api('/api/matches?status=done&limit=10')]);
      document.getElementById('mpm').textContent = num(st.matches_per_minute, 1);
      document.getElementById('refs').textContent = st.referees_available + ' / ' + st.referees_total;
      document.getElementById('running').textContent = st.running + ' / ' + st.queue_depth;
      document.getElementById('done').textContent = String(st.matches_done);
      document.getElementById('failed').textContent = String(st.matches_failed);
      const rows = (st.variants || []).map((v) => {
        const ls = (ladders.ladders || []).filter((l) => l.config && l.config.variant === v);
        const running = ls.find((l) => l.running);
        const ts = (tours.tournaments || []).filter((t) => t.variant === v);
        const open = ts.filter((t) => !t.finished);
        const ladderCell = running
          ? el('span', null, el('span', { class: 'live-dot' }), 'ladder ' + running.id + ' running, ' + running.matches_done + ' matches')
          : (ls.length ? el('span', { class: 'muted' }, ls.length + ' stopped') : el('span', { class: 'muted' }, '\u2013'));
        const tourCell = ts.length ? el('span', null, el('a', { href: '/tournaments?variant=' + encodeURIComponent(v) },
          ts.length + (ts.length === 1 ? ' tournament' : ' tournaments')), open.length ? ' (' + open.length + ' running)' : '') : el('span', { class: 'muted' }, '\u2013');
        return { data: { v, active: running ? 2 : ts.length ? 1 : 0 },
          cells: [el('a', { href: '/leaderboard/' + encodeURIComponent(v), class: 'variant' }, v), ladderCell, tourCell,
            el('a', { href: '/matches?variant=' + encodeURIComponent(v) }, 'matches')] };
      });
      rows.sort((a, b) => b.data.active - a.data.active);
      clear(document.getElementById('variants')).appendChild(wrap(table(
        [{ label: 'Variant' }, { label: 'Ladder' }, { label: 'Tournaments' }, { label: '' }], rows)));
      clear(document.getElementById('recent')).appendChild(wrap(table(MATCH_COLUMNS, matchRows(last.matches || []),
        { empty: 'No finished match yet.' })));
    }, 2000);
  }

  // ---- leaderboard -------------------------------------------------------------
  async function leaderboard(variant) {
    T.nav('leaderboard');
    const st = await api('/api/status');
    const ladders = await api('/api/ladders');
    if (!variant) {
      const running = (ladders.ladders || []).filter((l) => l.running).map((l) => l.config.variant);
      variant = running[0] || ((ladders.ladders || []).slice(-1)[0] || { config: {} }).config.variant || 'slovenian-4p';
    }
    if (!(st.variants || []).includes(variant)) { T.notFound(main, 'There is no variant ' + variant + '.'); return; }
    setTitle('Leaderboard ' + variant);
    const tabs = el('div', { class: 'hand-tabs' }, (st.variants || []).map((v) =>
      el('a', { href: '/leaderboard/' + encodeURIComponent(v), class: v === variant ? 'active' : null }, v)));
    const live = el('span', { id: 'live', class: 'muted' });
    clear(main).append(head('Leaderboard', el('span', null, variant, ' \u00b7 ', live)), tabs,
      el('div', { id: 'board', class: 'panel' }),
      el('p', { class: 'legend' }, 'Rating = mu \u2212 3 sigma (OpenSkill, Plackett-Luce). Trend: change of the rating over the last 10 rated matches. Click a column to sort.'));
    let sort = { col: -1, dir: 1 };
    let last = '';
    stopPolling = poll(async () => {
      const [lb, ls] = await Promise.all([api('/api/leaderboard?variant=' + encodeURIComponent(variant)), api('/api/ladders')]);
      const running = (ls.ladders || []).find((l) => l.running && l.config.variant === variant);
      live.textContent = '';
      if (running) live.append(el('span', { class: 'live-dot' }), 'ladder running, ' + running.matches_done + ' matches \u2014 updates live');
      else live.textContent = 'no ladder running';
      const key = JSON.stringify(lb.entries);
      if (key === last) return;
      last = key;
      const rows = (lb.entries || []).map((e) => ({
        data: e,
        cells: [String(e.rank), botLink(e.bot), el('span', { class: 'owner' }, e.owner), el('strong', null, num(displayOf(e.rating))),
          num(e.rating.mu), num(e.rating.sigma), int(e.rating.matches),
          e.rating.faults ? el('span', { class: 'bad' }, int(e.rating.faults)) : '0',
          el('span', { class: e.trend > 0.005 ? 'trend-up' : e.trend < -0.005 ? 'trend-down' : 'muted' },
            (e.trend > 0.005 ? '\u25b2 ' : e.trend < -0.005 ? '\u25bc ' : '') + signed(e.trend, 2))],
      }));
      const t = table([
        { label: 'Rank', cls: 'num', sort: (e) => e.rank },
        { label: 'Bot', sort: (e) => e.bot.toLowerCase() },
        { label: 'Owner', cls: 'hide-sm', sort: (e) => e.owner.toLowerCase() },
        { label: 'Rating', cls: 'num', sort: (e) => e.rating.display, desc: true },
        { label: 'mu', cls: 'num', sort: (e) => e.rating.mu, desc: true },
        { label: 'sigma', cls: 'num', sort: (e) => e.rating.sigma },
        { label: 'Matches', cls: 'num', sort: (e) => e.rating.matches, desc: true },
        { label: 'Faults', cls: 'num', sort: (e) => e.rating.faults, desc: true },
        { label: 'Trend', cls: 'num', sort: (e) => e.trend, desc: true },
      ], rows, { sortCol: sort.col, sortDir: sort.dir, empty: 'No rated bot in ' + variant + ' yet.' });
      sort = t.sortState;
      clear(document.getElementById('board')).appendChild(wrap(t));
    }, 2000);
  }

  // ---- bots ----------------------------------------------------------------------
  // A dial-in bot (docs/dial-in.md): whether it is connected now, and then
  // its route (it joins the referees itself, or plays through the arena).
  function dialIn(b) {
    if (!b.dial_in) return null;
    const route = b.dial_in_route === 'relay' ? ', relayed' : b.dial_in_route === 'direct' ? ', direct' : '';
    return el('span', { class: 'muted dial-in' }, b.online ? ' \u00b7 dial-in, online' + route : ' \u00b7 dial-in, offline');
  }

  // Health (arena/scheduler/bot_health.h): benched bots say why and until when.
  function health(b) {
    const h = b.health || 'online';
    if (h === 'online' || h === 'retired' || h === 'offline') return null;
    return el('span', { class: 'bad health', title: (b.health_error || '') + (b.next_probe ? ' \u00b7 next probe ' + b.next_probe + ' UTC' : '') },
      ' \u00b7 ' + h + ', sits out ladders');
  }

  async function bots() {
    T.nav('bots');
    setTitle('Bots');
    const list = await api('/api/bots');
    const rows = (list.bots || []).map((b) => {
      const best = (b.ratings || []).slice().sort((x, y) => y.display - x.display)[0];
      return { data: b, cells: [el('span', null, botLink(b.name), dialIn(b), health(b)), el('span', null, b.owner), el('span', { class: 'wrap' }, (b.variants || []).join(', ')),
        best ? num(best.display) + ' (' + best.variant + ')' : '\u2013',
        String((b.ratings || []).reduce((a, r) => a + r.matches, 0))] };
    });
    clear(main).append(head('Bots', (list.bots || []).length + ' active bots'), el('div', { class: 'panel' }, wrap(table([
      { label: 'Bot', sort: (b) => b.name.toLowerCase() }, { label: 'Owner', sort: (b) => b.owner.toLowerCase() },
      { label: 'Variants', cls: 'wrap' }, { label: 'Best rating', cls: 'num' }, { label: 'Rated matches', cls: 'num' }], rows,
    { empty: 'No bot registered yet.' }))));
  }

  // A chart of mu with its +-sigma band over the rated matches of one variant.
  function ratingChart(points) {
    const W = 720; const H = 240; const L = 40; const R = 10; const TOP = 10; const B = 24;
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('class', 'chart');
    svg.setAttribute('role', 'img');
    const mk = (tag, attrs, text) => {
      const n = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
      if (text !== undefined) n.textContent = text;
      svg.appendChild(n);
      return n;
    };
    const pts = [{ mu: 25, sigma: 25 / 3 }].concat(points);
    const lo = Math.min(...pts.map((p) => p.mu - p.sigma));
    const hi = Math.max(...pts.map((p) => p.mu + p.sigma));
    const x = (i) => L + (W - L - R) * (pts.length === 1 ? 0 : i / (pts.length - 1));
    const y = (v) => TOP + (H - TOP - B) * (1 - (v - lo) / ((hi - lo) || 1));
    for (let k = 0; k <= 4; k++) {
      const v = lo + (hi - lo) * k / 4;
      mk('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'axis' });
      mk('text', { x: 4, y: y(v) + 4 }, v.toFixed(1));
    }
    const band = pts.map((p, i) => x(i) + ',' + y(p.mu + p.sigma)).concat(
      pts.slice().reverse().map((p, j) => x(pts.length - 1 - j) + ',' + y(p.mu - p.sigma)));
    mk('polygon', { points: band.join(' '), class: 'band' });
    mk('polyline', { points: pts.map((p, i) => x(i) + ',' + y(p.mu)).join(' '), class: 'line' });
    mk('text', { x: L, y: H - 6 }, 'start');
    mk('text', { x: W - R, y: H - 6, 'text-anchor': 'end' }, points.length + ' rated matches');
    return svg;
  }

  async function botPage(name) {
    T.nav('bots');
    setTitle(name);
    let bot;
    try { bot = await api('/api/bots/' + encodeURIComponent(name)); } catch (e) { showError(e); return; }
    const [stats, recent] = await Promise.all([api('/api/bots/' + encodeURIComponent(name) + '/stats'),
      api('/api/matches?limit=10&bot=' + encodeURIComponent(name))]);
    clear(main).append(head(bot.name, el('span', null, 'owner ', el('strong', { class: 'owner' }, bot.owner), ' \u00b7 plays ',
      (bot.variants || []).join(', '), bot.retired ? ' \u00b7 retired' : '', dialIn(bot), health(bot))));
    if (bot.health === 'unreachable' || bot.health === 'unresponsive')
      main.append(el('div', { class: 'notice', id: 'health' }, 'This bot is ' + bot.health + ' since ' + bot.health_since +
        ' UTC and sits out new ladder matches: ' + (bot.health_error || '') + '. The arena checks it again at ' +
        bot.next_probe + ' UTC and puts it back when it answers.'));
    const tiles = el('div', { class: 'tiles' },
      tile('rated matches', String((bot.ratings || []).reduce((a, r) => a + r.matches, 0))),
      tile('mean decision time', num(stats.mean_decision_ms, 2) + ' ms'),
      tile('decisions', String(stats.decisions)),
      tile('faults', String((stats.faults || []).reduce((a, f) => a + f.count, 0))));
    main.append(tiles);
    // Rating history per variant.
    const byVariant = {};
    (bot.history || []).forEach((h) => { (byVariant[h.variant] = byVariant[h.variant] || []).push(h); });
    const variants = Object.keys(byVariant).sort((a, b) => byVariant[b].length - byVariant[a].length);
    const chartBox = el('div', { id: 'chart' });
    const pick = el('select', { id: 'chart-variant', onchange: () => drawChart(pick.value) }, variants.map((v) => el('option', { value: v }, v)));
    function drawChart(v) { clear(chartBox).appendChild(byVariant[v] ? ratingChart(byVariant[v]) : el('p', { class: 'muted' }, 'No rated match yet.')); }
    main.append(el('div', { class: 'panel' }, el('div', { class: 'page-head' }, el('h2', null, 'Rating history'), variants.length > 1 ? pick : null),
      chartBox, el('p', { class: 'legend' }, 'mu (line) with its \u00b1sigma band after each rated match.')));
    drawChart(variants[0]);
    // Ratings and results per variant.
    const statOf = {};
    (stats.variants || []).forEach((v) => { statOf[v.variant] = v; });
    const pct = (a, b) => (b ? Math.round(100 * a / b) + '%' : '\u2013');
    const mean = (a, b) => (b ? signed(a / b, 1) : '\u2013');
    const rrows = (bot.ratings || []).map((r) => {
      const s = statOf[r.variant] || {};
      return { data: r, cells: [T.variantLink(r.variant), el('strong', null, num(r.display)), num(r.mu), num(r.sigma), int(r.matches),
        int(s.wins) + ' (' + pct(s.wins, s.matches) + ')', s.matches ? num(s.mean_rank + 1, 2) : '\u2013',
        s.hands ? signed(s.total / s.hands, 1) : '\u2013', num(s.mean_decision_ms, 2), int(r.faults)] };
    });
    const srows = (stats.variants || []).map((s) => ({ data: s, cells: [T.variantLink(s.variant),
      int(s.declarer_hands), pct(s.declarer_won, s.declarer_hands), mean(s.declarer_score, s.declarer_hands),
      int(s.defender_hands), pct(s.defender_won, s.defender_hands), mean(s.defender_score, s.defender_hands)] }));
    main.append(el('div', { class: 'panel' }, el('h2', null, 'Ratings and results per variant'), wrap(table([
      { label: 'Variant' }, { label: 'Rating', cls: 'num' }, { label: 'mu', cls: 'num' }, { label: 'sigma', cls: 'num' },
      { label: 'Matches', cls: 'num' }, { label: 'Wins', cls: 'num' }, { label: 'Mean place', cls: 'num' },
      { label: 'Per hand', cls: 'num' }, { label: 'ms / decision', cls: 'num' }, { label: 'Faults', cls: 'num' }], rrows,
    { empty: 'No rated match yet.' }))),
    el('div', { class: 'panel', id: 'sides' }, el('h2', null, 'As declarer and as defender'), wrap(table([
      { label: 'Variant' }, { label: 'Declarer hands', cls: 'num' }, { label: 'won', cls: 'num' }, { label: 'mean score', cls: 'num' },
      { label: 'Defender hands', cls: 'num' }, { label: 'won', cls: 'num' }, { label: 'mean score', cls: 'num' }], srows,
    { empty: 'No finished match yet.' })),
    el('p', { class: 'legend' }, 'Declarer hands count the declarer\u2019s side (declarer and partner); a defender wins when the declarer loses. Klop and void deals are neither. Computed from each hand\u2019s result when the match is committed.')));
    // Faults by kind.
    const faults = stats.faults || [];
    const maxF = Math.max(1, ...faults.map((f) => f.count));
    main.append(el('div', { class: 'cols' },
      el('div', { class: 'panel' }, el('h2', null, 'Faults by kind'), faults.length
        ? el('div', { class: 'bars' }, faults.map((f) => el('div', { class: 'bar' }, el('span', null, f.kind),
          el('span', { class: 'track' }, el('span', { class: 'fill', style: { width: (100 * f.count / maxF) + '%', display: 'block' } })),
          el('span', { class: 'num' }, String(f.count)))))
        : el('p', { class: 'good' }, 'No faults.')),
      el('div', { class: 'panel' }, el('h2', null, 'Recent matches'), wrap(table([{ label: 'Match' }, { label: 'Variant' },
        { label: 'Place', cls: 'num' }, { label: 'Total', cls: 'num' }, { label: 'Finished', cls: 'hide-sm' }],
      (recent.matches || []).map((m) => {
        const me = (m.seats || []).find((s) => s.bot === bot.name) || {};
        return { data: m, cells: [matchLink(m.id), m.variant, m.status === 'done' ? String(me.rank + 1) + ' / ' + m.seats.length : badge(m.status),
          m.status === 'done' ? signed(me.total) : '', finishedAgo(m)] };
      }), { empty: 'No match yet.' })), el('p', null, el('a', { href: '/matches?bot=' + encodeURIComponent(bot.name) }, 'All matches of ' + bot.name + ' \u2192')))));
  }

  // ---- matches ---------------------------------------------------------------------
  const PAGE = 50;
  async function matches() {
    T.nav('matches');
    setTitle('Matches');
    const q = T.params();
    const st = await api('/api/status');
    const field = (label, input) => el('label', null, label, input);
    const f = {
      variant: el('select', { name: 'variant' }, el('option', { value: '' }, 'all'), (st.variants || []).map((v) => el('option', { value: v }, v))),
      bot: el('input', { name: 'bot', placeholder: 'bot name', size: 14 }),
      kind: el('select', { name: 'kind' }, ['', 'ladder', 'tournament', 'play', 'test'].map((k) => el('option', { value: k }, k || 'all'))),
      ladder: el('input', { name: 'ladder', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      tournament: el('input', { name: 'tournament', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      test: el('input', { name: 'test', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      status: el('select', { name: 'status' }, ['', 'done', 'failed', 'running', 'pending'].map((k) => el('option', { value: k }, k || 'all'))),
    };
    for (const [k, input] of Object.entries(f)) input.value = q.get(k) || '';
    let offset = Math.max(0, Number(q.get('offset')) || 0);
    const form = el('form', { class: 'filters', onsubmit: (e) => { e.preventDefault(); offset = 0; load(true); } },
      field('Variant', f.variant), field('Bot', f.bot), field('Kind', f.kind), field('Ladder', f.ladder),
      field('Tournament', f.tournament), field('Test', f.test), field('Outcome', f.status), el('button', { type: 'submit' }, 'Filter'));
    for (const k of ['variant', 'kind', 'status']) f[k].addEventListener('change', () => { offset = 0; load(true); });
    const info = el('span', { class: 'muted', id: 'page-info' });
    const prev = el('button', { class: 'secondary', type: 'button', onclick: () => { offset = Math.max(0, offset - PAGE); load(true); } }, '\u2190 Newer');
    const next = el('button', { class: 'secondary', type: 'button', onclick: () => { offset += PAGE; load(true); } }, 'Older \u2192');
    const list = el('div', { id: 'list' });
    clear(main).append(head('Matches'), el('div', { class: 'panel' }, form, list, el('div', { class: 'pager' }, prev, next, info)));
    async function load(push) {
      const p = new URLSearchParams();
      for (const [k, input] of Object.entries(f)) if (input.value.trim()) p.set(k, input.value.trim());
      if (offset) p.set('offset', String(offset));
      if (push) history.replaceState(null, '', '/matches' + (p.toString() ? '?' + p : ''));
      p.set('limit', String(PAGE));
      let r;
      try { r = await api('/api/matches?' + p); } catch (e) {
        clear(list).appendChild(T.errorBox(e.status === 404 ? 'No bot named ' + f.bot.value + '.' : e.message));
        return;
      }
      const total = Number(r.total);
      clear(list).appendChild(wrap(table(MATCH_COLUMNS, matchRows(r.matches || []), { empty: 'No match passes these filters.' })));
      info.textContent = total ? (offset + 1) + '\u2013' + Math.min(total, offset + (r.matches || []).length) + ' of ' + total : '0 matches';
      prev.disabled = offset === 0;
      next.disabled = offset + PAGE >= total;
    }
    await load(false);
  }

  // ---- tournaments -------------------------------------------------------------------
  async function tournaments() {
    T.nav('tournaments');
    setTitle('Tournaments');
    const v = T.params().get('variant');
    const r = await api('/api/tournaments?limit=500');
    const ts = (r.tournaments || []).filter((t) => !v || t.variant === v);
    clear(main).append(head('Tournaments', v ? 'variant ' + v : null), el('div', { class: 'panel' }, wrap(table([
      { label: 'Id', cls: 'num', sort: (t) => Number(t.id), desc: true }, { label: 'Name' }, { label: 'Variant' }, { label: 'Format' },
      { label: 'Matches', cls: 'num' }, { label: 'State' }, { label: 'Created', cls: 'hide-sm' }],
    ts.map((t) => ({ data: t, cells: [String(t.id), el('a', { href: '/tournaments/' + t.id }, t.name || ('tournament ' + t.id)),
      t.variant, t.format, t.matches_done + ' / ' + t.matches_total + (t.matches_failed ? ' (' + t.matches_failed + ' failed)' : ''),
      t.finished ? badge('finished', 'done') : el('span', null, el('span', { class: 'live-dot' }), 'running'), t.created_at] })),
    { empty: 'No tournament yet.' }))));
  }

  async function tournamentPage(id) {
    T.nav('tournaments');
    let t;
    try { t = await api('/api/tournaments/' + encodeURIComponent(id)); } catch (e) { showError(e); return; }
    setTitle(t.name || 'Tournament ' + id);
    clear(main).append(head(t.name || ('Tournament ' + id), t.variant + ' \u00b7 ' + t.format + ' \u00b7 ' +
      t.matches_done + ' of ' + t.matches_total + ' matches done' + (t.matches_failed ? ', ' + t.matches_failed + ' failed' : '') +
      (t.finished ? ' \u00b7 finished' : ' \u00b7 running')));
    if (T.tournamentWaiting) main.append(T.tournamentWaiting(t));
    const duplicate = /duplicate/.test(t.format || '');
    const elsewhere = (s) => duplicate && s.runs_elsewhere
      ? el('span', { class: 'muted', title: 'runs on its own machine: it could remember a deal from one table of the set to the next' }, ' \u2020') : '';
    const rows = (t.standings || []).map((s, i) => ({ data: s, cells: [String(i + 1), el('span', null, botLink(s.bot), elsewhere(s)), el('strong', null, signed(s.mean_per_hand, 2)),
      s.ci95 >= 0 ? '\u00b1 ' + num(s.ci95, 2) : '\u2013',
      s.ci95 >= 0 ? '[' + signed(s.mean_per_hand - s.ci95, 2) + ', ' + signed(s.mean_per_hand + s.ci95, 2) + ']' : '\u2013',
      signed(s.total), String(s.hands), s.faults ? el('span', { class: 'bad' }, String(s.faults)) : '0', num(s.mean_rank + 1, 2)] }));
    main.append(el('div', { class: 'panel', id: 'standings' }, el('h2', null, 'Standings'), wrap(table([
      { label: 'Rank', cls: 'num' }, { label: 'Bot' }, { label: 'Mean / hand', cls: 'num', sort: (s) => s.mean_per_hand, desc: true },
      { label: '95% CI \u00b1', cls: 'num' }, { label: 'Interval', cls: 'num hide-sm' }, { label: 'Total', cls: 'num', sort: (s) => Number(s.total), desc: true },
      { label: 'Hands', cls: 'num' }, { label: 'Faults', cls: 'num', sort: (s) => s.faults, desc: true },
      { label: 'Mean place', cls: 'num', sort: (s) => s.mean_rank }], rows, { empty: 'No match finished yet.' })),
    el('p', { class: 'legend' }, 'Mean score per hand with the half-width of its 95% confidence interval; mean place over its matches (1 = first).' +
      (duplicate && (t.standings || []).some((s) => s.runs_elsewhere)
        ? ' \u2020 runs on its own machine: in duplicate play such a bot could remember a deal from one table to the next, so its result rests on trust.' : ''))));
    const list = el('div');
    main.append(el('div', { class: 'panel' }, el('h2', null, 'Matches'), list));
    const r = await api('/api/matches?limit=200&tournament=' + encodeURIComponent(id));
    list.appendChild(wrap(table(MATCH_COLUMNS, matchRows(r.matches || []), { empty: 'No match.' })));
    if (Number(r.total) > 200) list.appendChild(el('p', null, el('a', { href: '/matches?tournament=' + id }, 'All ' + r.total + ' matches \u2192')));
    if (!t.finished && T.liveTournament) T.liveTournament(id, () => tournamentPage(id));
  }

  // ---- tests (`tarock compare` as an arena job) -------------------------------------------
  function testState(t) {
    if (t.status === 'running') return el('span', null, el('span', { class: 'live-dot' }), 'running');
    return badge(t.result, t.result === 'error' ? 'failed' : 'done');
  }
  async function testsPage() {
    T.nav('');
    setTitle('Tests');
    const r = await api('/api/tests?limit=500');
    clear(main).append(head('Tests', 'candidate against baseline on duplicate deals until the sequential test decides'),
      el('div', { class: 'panel' }, wrap(table([{ label: 'Id', cls: 'num' }, { label: 'Variant' }, { label: 'Candidate' },
        { label: 'Baseline' }, { label: 'Deals', cls: 'num' }, { label: 'Mean / deal', cls: 'num' }, { label: 'LLR', cls: 'num' },
        { label: 'State' }, { label: 'Created', cls: 'hide-sm' }],
      (r.tests || []).map((t) => ({ data: t, cells: [el('a', { href: '/tests/' + t.id }, String(t.id)), t.config.variant,
        botLink(t.config.candidate), botLink(t.config.baseline), int(t.deals), signed(t.mean, 2), num(t.llr, 2), testState(t),
        t.created_at] })), { empty: 'No test yet (tarock-arena-cli test run).' }))));
  }
  async function testPage(id) {
    T.nav('');
    let t;
    try { t = await api('/api/tests/' + encodeURIComponent(id)); } catch (e) { showError(e); return; }
    const c = t.config;
    setTitle('Test ' + id);
    clear(main).append(head('Test ' + id + ': ' + c.candidate + ' against ' + c.baseline, c.variant + ' \u00b7 ' + t.design +
      ' (' + (t.seatings || []).join(' ') + ') \u00b7 H0 ' + (c.h0 || 0) + ', H1 ' + c.h1 + ' per deal \u00b7 ' + (c.seed && c.seed !== '0' ? 'seed ' + c.seed : 'seed secret until the test ends')));
    main.append(el('div', { class: 'panel' }, el('p', null, testState(t), ' ', int(t.deals) + ' deals, mean difference ',
      el('strong', null, signed(t.mean, 2)), ' per deal [' + signed(t.ci_low, 2) + ', ' + signed(t.ci_high, 2) + '], LLR ' +
      num(t.llr, 2) + ' in [' + num(t.lower_bound, 2) + ', ' + num(t.upper_bound, 2) + '], ' + t.matches_done + ' of ' +
      t.matches_total + ' matches done', t.error ? el('span', { class: 'bad' }, ' \u00b7 ' + t.error) : null),
    wrap(table([{ label: 'Role' }, { label: 'Bot' }, { label: 'Hello' }, { label: 'Faults', cls: 'num' }],
      (t.bots || []).map((b) => ({ data: b, cells: [b.role, botLink(b.bot), [b.hello_name, b.hello_version].filter(Boolean).join(' '),
        String(b.faults || 0)] }))))));
    const list = el('div');
    main.append(el('div', { class: 'panel' }, el('h2', null, 'Matches'), list));
    const r = await api('/api/matches?limit=200&test=' + encodeURIComponent(id));
    list.appendChild(wrap(table(MATCH_COLUMNS, matchRows(r.matches || []), { empty: 'No match.' })));
    if (Number(r.total) > 200) list.appendChild(el('p', null, el('a', { href: '/matches?test=' + id }, 'All ' + r.total + ' matches \u2192')));
  }

  // ---- router ---------------------------------------------------------------------------
  async function route() {
    const path = decodeURIComponent(window.location.pathname.replace(/\/+$/, '')) || '/';
    const parts = path.split('/').filter(Boolean);
    footer();
    try {
      if (path === '/' || path === '/index.html') return await home();
      if (parts[0] === 'leaderboard' && parts.length <= 2) return await leaderboard(parts[1]);
      if (parts[0] === 'bots' && parts.length === 1) return await bots();
      if (parts[0] === 'bots' && parts.length === 2) return await botPage(parts[1]);
      if (parts[0] === 'matches' && parts.length === 1) return await matches();
      if (parts[0] === 'matches' && parts.length === 2) return await T.matchViewer(main, parts[1]);
      if (parts[0] === 'tournaments' && parts.length === 1) return await tournaments();
      if (parts[0] === 'tournaments' && parts.length === 2) return await tournamentPage(parts[1]);
      if (parts[0] === 'tests' && parts.length === 1) return await testsPage();
      if (parts[0] === 'tests' && parts.length === 2) return await testPage(parts[1]);
      T.nav('');
      T.notFound(main);
    } catch (e) {
      showError(e);
    }
  }
  function footer() {
    const f = document.getElementById('footer');
    if (f) clear(f).append('Tarock Arena \u00b7 data from the arena\u2019s JSON API (', el('a', { href: '/api/status' }, '/api/status'), ')');
  }
  window.addEventListener('DOMContentLoaded', route);
  if (document.readyState !== 'loading') route();
  window.addEventListener('beforeunload', () => { if (stopPolling) stopPolling(); });
})();
