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
  function tile(label, value, id, href) {
    return el(href ? 'a' : 'div', { class: 'tile' + (href ? ' tile-link' : ''), href: href || null },
      el('div', { class: 'value', id: id || null }, value), el('div', { class: 'label' }, label));
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
      botLink(s.bot), m.status === 'done' && m.deal_public ? el('span', { class: 'muted' }, ' ' + signed(s.total)) : null,
      s.faults ? el('span', { class: 'bad', title: s.faults + ' faults' }, ' \u26a0' + s.faults) : null)]));
  }
  function kindCell(m) {
    let label = m.kind;
    let href = null;
    if (m.kind === 'tournament' && Number(m.tournament_id)) { label = 'tournament ' + m.tournament_id; href = '/tournaments/' + m.tournament_id; }
    if (m.kind === 'ladder' && Number(m.ladder_id)) { label = 'ladder ' + m.ladder_id; href = '/ladders/' + m.ladder_id; }
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
  function matchTable(matches, empty) { return wrap(table(MATCH_COLUMNS, matchRows(matches), { empty, reflow: true })); }
  const MATCH_COLUMNS = [{ label: 'Match' }, { label: 'Variant' }, { label: 'Kind' }, { label: 'Status' },
    { label: 'Seats (total)', cls: 'wrap' }, { label: 'Hands', cls: 'num' }, { label: 'Time', cls: 'num hide-sm' },
    { label: 'Finished', cls: 'hide-sm' }];

  // ---- the event filter (docs/events.md) -----------------------------------------
  // Every list page filters by event: ?event=SLUG (one event), ?event=open
  // (the arena's open ladders), none (all). The select lists the public
  // events; an unlisted one named in the URL is kept as an option.
  // `openOnly`: no "all" (a leaderboard rates one event at a time: none is the open ladders).
  async function eventSelect(current, openOnly) {
    let evs = [];
    try { evs = (await api('/api/events')).events || []; } catch (e) { evs = []; }
    const slugs = evs.map((e) => e.config.slug);
    if (openOnly && current === 'open') current = '';
    const s = el('select', { name: 'event' }, el('option', { value: '' }, openOnly ? 'open ladders' : 'all'),
      openOnly ? null : el('option', { value: 'open' }, 'open ladders'),
      evs.map((e) => el('option', { value: e.config.slug }, e.config.name || e.config.slug)),
      current && current !== 'open' && !slugs.includes(current) ? el('option', { value: current }, current) : null);
    s.value = current || '';
    return s;
  }
  // Does an item of event `slug` ("" the open event) pass the filter `ev`?
  const inEvent = (ev, slug) => !ev || (ev === 'open' ? !slug : slug === ev);
  // A filter bar with the event select that reloads the page with ?event=.
  async function eventBar(openOnly) {
    const q = T.params();
    const s = await eventSelect(q.get('event') || '', openOnly);
    s.addEventListener('change', () => {
      const p = T.params();
      if (s.value) p.set('event', s.value); else p.delete('event');
      window.location.search = p.toString();
    });
    return el('form', { class: 'filters', onsubmit: (e) => e.preventDefault() }, el('label', null, 'Event', s));
  }

  // ---- home ------------------------------------------------------------------
  async function home() {
    T.nav('home');
    setTitle('Home');
    clear(main).append(head('Tarock Arena', 'Bots playing Central European Tarock: ladders, tournaments and every game to watch.'));
    const tiles = el('div', { class: 'tiles' },
      tile('matches per minute', '\u2013', 'mpm', '/matches?status=done'), tile('referees available', '\u2013', 'refs'),
      tile('running / queued', '\u2013', 'running', '/matches?status=running'), tile('matches done', '\u2013', 'done', '/matches?status=done'),
      tile('failed', '\u2013', 'failed', '/matches?status=failed'));
    const variants = el('div', { class: 'panel' }, el('h2', null, 'Variants'), el('div', { id: 'variants' }));
    const recent = el('div', { class: 'panel' }, el('h2', null,
      el('span', { class: 'live-dot' }), 'Last finished matches'), el('div', { id: 'recent' }));
    const watch = el('div', { class: 'panel', id: 'watch' }, el('h2', null, 'Watch the last set'), el('div', { id: 'watch-body' },
      el('p', { class: 'muted' }, 'No finished set to watch yet.')));
    main.append(tiles, watch, T.liveList ? T.liveList() : '', variants, recent);
    let watchKey = '';
    stopPolling = poll(async () => {
      const [st, ladders, tours, last, sets] = await Promise.all([api('/api/status'), api('/api/ladders'),
        api('/api/tournaments?limit=200'), api('/api/matches?status=done&limit=10'), api('/api/matches?status=done&limit=40')]);
      document.getElementById('mpm').textContent = num(st.matches_per_minute, 1);
      document.getElementById('refs').textContent = st.referees_available + ' / ' + st.referees_total;
      document.getElementById('running').textContent = st.running + ' / ' + st.queue_depth;
      document.getElementById('done').textContent = String(st.matches_done);
      document.getElementById('failed').textContent = String(st.matches_failed);
      const rows = (st.variants || []).map((v) => {
        const ls = (ladders.ladders || []).filter((l) => l.config && l.config.variant === v);
        // The open ladder first; an event's ladder says whose it is.
        const running = ls.find((l) => l.running && !l.config.event) || ls.find((l) => l.running);
        const ts = (tours.tournaments || []).filter((t) => t.variant === v);
        const open = ts.filter((t) => !t.finished);
        const ladderCell = running
          ? el('span', null, el('span', { class: 'live-dot' }), T.ladderLink(running.id), running.config.event ? ' (event ' + running.config.event + ')' : '',
            ' running, ' + running.matches_done + ' matches')
          : (ls.length ? el('a', { class: 'muted', href: '/ladders?variant=' + encodeURIComponent(v) }, ls.length + ' stopped') : el('span', { class: 'muted' }, '\u2013'));
        const tourCell = ts.length ? el('span', null, el('a', { href: '/tournaments?variant=' + encodeURIComponent(v) },
          ts.length + (ts.length === 1 ? ' tournament' : ' tournaments')), open.length ? ' (' + open.length + ' running)' : '') : el('span', { class: 'muted' }, '\u2013');
        return { data: { v, active: running ? 2 : ts.length ? 1 : 0 },
          cells: [el('a', { href: '/leaderboard/' + encodeURIComponent(v), class: 'variant' }, v), ladderCell, tourCell,
            el('a', { href: '/matches?variant=' + encodeURIComponent(v) }, 'matches')] };
      });
      rows.sort((a, b) => b.data.active - a.data.active);
      clear(document.getElementById('variants')).appendChild(wrap(table(
        [{ label: 'Variant' }, { label: 'Ladder' }, { label: 'Tournaments' }, { label: '' }], rows, { reflow: true })));
      clear(document.getElementById('recent')).appendChild(matchTable(last.matches || [], 'No finished match yet.'));
      // The featured set: the newest finished one whose deal is public
      // (every table of it has finished), its tables to watch played back.
      const pub = (sets.matches || []).filter((m) => m.deal_public);
      const key = pub.length ? pub[0].seed_commitment || pub[0].id : '';
      if (key === watchKey) return;
      watchKey = key;
      const body = clear(document.getElementById('watch-body'));
      if (!pub.length) { body.appendChild(el('p', { class: 'muted' }, 'No finished set to watch yet.')); return; }
      const tables = pub.filter((m) => (m.seed_commitment || m.id) === key).sort((a, b) => (a.id < b.id ? -1 : 1));
      const m0 = tables[0];
      body.append(el('p', null, m0.variant + ' \u00b7 ' + (m0.kind === 'ladder' ? 'ladder ' + m0.ladder_id : m0.kind) + ' \u00b7 ' +
        T.count(m0.hands, 'hand') + ' \u00b7 ' + (tables.length > 1 ? tables.length + ' tables dealt the same cards' : 'one table') +
        ' \u00b7 finished ' + finishedAgo(m0)),
      el('ul', { class: 'watch-tables' }, tables.map((m, i) => el('li', null,
        el('a', { href: '/matches/' + encodeURIComponent(m.id) + '?watch=1', class: 'button watch-link' }, '\u25b6 watch ' + (tables.length > 1 ? 'table ' + (i + 1) : 'it')),
        el('span', null, (m.seats || []).slice().sort((a, b) => a.seat - b.seat).map((st, k) => [k ? ', ' : '', botLink(st.bot)]))))),
      el('p', { class: 'legend' }, (tables.length > 1 ? 'A duplicate set is shown once every table of it has finished (until then its cards are secret: the same deal is still being played at another table). Then each table'
        : 'A match is shown once its deal is public (every table dealt its cards has finished). Then it') +
        ' plays back here by itself, action by action, the hands face up as spectators see them after the game; the result stays folded away until asked for.'));
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
    // ?event=SLUG: that event's ratings (each event rates apart); none or
    // "open": the open ladders'.
    const ev = T.params().get('event') || '';
    const evSlug = ev === 'open' ? '' : ev;
    const bar = await eventBar(true);
    const tabs = el('div', { class: 'hand-tabs' }, (st.variants || []).map((v) =>
      el('a', { href: '/leaderboard/' + encodeURIComponent(v) + (ev ? '?event=' + encodeURIComponent(ev) : ''), class: v === variant ? 'active' : null }, v)));
    const live = el('span', { id: 'live', class: 'muted' });
    // Which ratings: ?rating_model=place|margin, else the variant's newest
    // ladder's (the API decides; docs/ratings.md).
    const asked = new URLSearchParams(window.location.search).get('rating_model') || '';
    const legend = el('p', { class: 'legend', id: 'board-legend' });
    const other = el('p', { class: 'legend', id: 'board-other' });
    const versus = el('p', { id: 'board-versus' });
    clear(main).append(head('Leaderboard', el('span', null, variant, evSlug ? ' \u00b7 ' + evSlug : '', ' \u00b7 ', live)), tabs, bar,
      versus, el('div', { id: 'board', class: 'panel' }), legend, other);
    let sort = { col: -1, dir: 1 };
    let last = '';
    stopPolling = poll(async () => {
      const [lb, ls] = await Promise.all([api('/api/leaderboard?variant=' + encodeURIComponent(variant) +
        (asked ? '&rating_model=' + encodeURIComponent(asked) : '') + (evSlug ? '&event=' + encodeURIComponent(evSlug) : '')), api('/api/ladders')]);
      const running = (ls.ladders || []).find((l) => l.running && l.config.variant === variant && (l.config.event || '') === evSlug);
      live.textContent = '';
      if (running) live.append(el('span', { class: 'live-dot' }), 'ladder running, ' + running.matches_done + ' matches \u2014 updates live');
      else live.textContent = 'no ladder running';
      const key = JSON.stringify(lb.entries) + lb.rating_model;
      if (key === last) return;
      last = key;
      const margin = lb.rating_model === 'margin';
      const otherModel = margin ? 'place' : 'margin';
      clear(other).append('Both histories are kept: ', el('a', { href: '/leaderboard/' + encodeURIComponent(variant) +
        '?rating_model=' + otherModel + (ev ? '&event=' + encodeURIComponent(ev) : ''), id: 'other-model' }, 'the ' + otherModel + ' ratings of ' + variant), '.');
      if (margin) {
        clear(legend).append('Margin ratings: ', el('strong', null, lb.unit || 'points a deal'),
          ' above or below the field, from duplicate sets (the same deals at several tables; each bot\u2019s hand scores compared with the others who held the same cards, the radl settlement left out), with the 95% interval. ' + T.MARGIN_CAP,
          'vs next: how far the bot is above the next one head to head, with the 95% interval of that difference. ',
          el('span', { class: 'unsep' }, '\u2248'), ' = its interval overlaps the next bot\u2019s: the two are not separated yet. Deals: how many deals the rating rests on. ',
          el('span', { class: 'provisional' }, 'provisional'), ' = fewer than ' + PROVISIONAL + ' sets.');
        const rows = (lb.entries || []).map((e) => {
          const m = e.margin || {};
          return {
            data: e,
            cells: [String(e.rank), botLink(e.bot), el('span', { class: 'owner' }, e.owner),
              el('span', null, el('strong', null, signed(m.mu, 2)), provisionalMark(e.provisional)),
              el('span', { class: 'interval' }, '[' + signed(m.low, 2) + ', ' + signed(m.high, 2) + ']'),
              vsNext(e),
              int(m.deals), int(m.sets), e.rating.faults ? el('span', { class: 'bad' }, int(e.rating.faults)) : '0'],
          };
        });
        // ?compare=A,B: how far the bots named A (or A-...) are above those
        // named B (or B-...) head to head, as `leaderboard --compare` says it.
        const line = compareLine(lb, T.params().get('compare') || '');
        clear(versus);
        if (line) versus.append(...line);
        const t = table([
          { label: 'Rank', cls: 'num', sort: (e) => e.rank },
          { label: 'Bot', sort: (e) => e.bot.toLowerCase() },
          { label: 'Owner', cls: 'hide-sm', sort: (e) => e.owner.toLowerCase() },
          { label: lb.unit || 'Points a deal', cls: 'num', sort: (e) => (e.margin || {}).mu, desc: true },
          { label: '95% interval', cls: 'num' },
          { label: 'vs next', cls: 'num' },
          { label: 'Deals', cls: 'num', sort: (e) => Number((e.margin || {}).deals), desc: true },
          { label: 'Sets', cls: 'num hide-sm', sort: (e) => (e.margin || {}).sets, desc: true },
          { label: 'Faults', cls: 'num hide-sm', sort: (e) => e.rating.faults, desc: true },
        ], rows, { sortCol: sort.col, sortDir: sort.dir, reflow: true, empty: 'No bot rated by margin in ' + variant + ' yet.' });
        t.classList.add('margin-board');
        sort = t.sortState;
        clear(document.getElementById('board')).appendChild(wrap(t));
        return;
      }
      clear(legend).append('Rating = mu \u2212 3 sigma (OpenSkill, Plackett-Luce, on the places of each match). ', el('span', { class: 'provisional' }, 'provisional'),
        ' = fewer than ' + PROVISIONAL + ' rated matches: the rating rests on too few results to compare. Trend: change of the rating over the last 10 rated matches. Click a column to sort.');
      const rows = (lb.entries || []).map((e) => ({
        data: e,
        cells: [String(e.rank), botLink(e.bot), el('span', { class: 'owner' }, e.owner), el('span', null, el('strong', null, num(displayOf(e.rating))), provisionalMark(e.provisional)),
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
        { label: 'mu', cls: 'num hide-sm', sort: (e) => e.rating.mu, desc: true },
        { label: 'sigma', cls: 'num hide-sm', sort: (e) => e.rating.sigma },
        { label: 'Matches', cls: 'num', sort: (e) => e.rating.matches, desc: true },
        { label: 'Faults', cls: 'num hide-sm', sort: (e) => e.rating.faults, desc: true },
        { label: 'Trend', cls: 'num', sort: (e) => e.trend, desc: true },
      ], rows, { sortCol: sort.col, sortDir: sort.dir, empty: 'No rated bot in ' + variant + ' yet.' });
      sort = t.sortState;
      clear(document.getElementById('board')).appendChild(wrap(t));
    }, 2000);
  }

  // ?compare=A,B on a margin board: the bots named A or A-... against those
  // named B or B-..., head to head (the mean of each group's mu; variances
  // weighted 1/n^2: MarginRatingModel::HeadToHead), as the CLI's
  // `leaderboard --compare` line says it. Null when it cannot be said.
  function compareLine(lb, spec) {
    const names = spec.split(',');
    if (lb.rating_model !== 'margin' || names.length !== 2 || !names[0] || !names[1]) return null;
    const inGroup = (bot, g) => bot === g || (bot.startsWith(g + '-'));
    const a = [], b = [];
    for (const e of lb.entries || []) {
      const isA = inGroup(e.bot, names[0]), isB = inGroup(e.bot, names[1]);
      if (isA && (!isB || names[0].length >= names[1].length)) a.push(e.margin || {});
      else if (isB) b.push(e.margin || {});
    }
    if (!a.length || !b.length) return null;
    const mean = (g) => g.reduce((x, m) => x + Number(m.mu || 0), 0) / g.length;
    const v = (g) => g.reduce((x, m) => x + Number(m.sigma || 0) ** 2, 0) / (g.length * g.length);
    const diff = mean(a) - mean(b), sd = Math.sqrt(v(a) + v(b));
    const low = diff - 1.96 * sd, high = diff + 1.96 * sd;
    const who = (name, g) => g.length === 1 ? name : name + ' (' + g.length + ' bots)';
    return [el('strong', null, who(names[0], a) + ' is ' + Math.abs(diff).toFixed(2) + ' ' + (lb.unit || 'points a deal') +
      (diff >= 0 ? ' above ' : ' below ') + who(names[1], b)), ' head to head, 95% interval of the difference ',
      el('span', { class: 'interval' }, '[' + signed(low, 2) + ', ' + signed(high, 2) + ']'),
      low > 0 || high < 0 ? '' : ', not separated yet', '.'];
  }

  // Ratings on fewer rated matches than this are marked (common.js).
  const { PROVISIONAL, provisionalMark, vsNext } = T;

  // ---- bots ----------------------------------------------------------------------
  // A dial-in bot (docs/dial-in.md): whether it is connected now, and then
  // its route (it joins the referees itself, or plays through the arena).
  function dialIn(b) {
    if (!b.dial_in) return null;
    const route = b.dial_in_route === 'relay' ? ', relayed' : b.dial_in_route === 'direct' ? ', direct' : '';
    // A hosted bot (docs/hosting.md) is played by the arena's bot hosts: "hosted", not "dial-in".
    const kind = b.hosted ? 'hosted' : 'dial-in';
    return el('span', { class: 'muted dial-in', title: b.hosted ? 'uploaded to the arena and played by its bot hosts (docs/hosting.md)' : 'its own process connects to the arena (docs/dial-in.md)' },
      b.online ? ' \u00b7 ' + kind + ', online' + route : ' \u00b7 ' + kind + (b.hosted ? ', no bot host connected' : ', offline'));
  }

  // Health (arena/scheduler/bot_health.h): benched bots say why and until when.
  function health(b) {
    const h = b.health || 'online';
    if (h === 'online' || h === 'retired' || h === 'offline') return null;
    return el('span', { class: 'bad health', title: (b.health_error || '') + (b.next_probe ? ' \u00b7 next probe ' + b.next_probe + ' UTC' : '') },
      ' \u00b7 ' + h + ', sits out ladders');
  }

  // ---- a bot's standings (issue 48) ---------------------------------------------
  // Every rating of a bot comes from one source, named with it: its ladder
  // (variant and event: "" the open ladders) and its model ("margin": points
  // a deal from duplicate sets, docs/ratings.md; "place": OpenSkill on the
  // places of single matches). The headline is the standing in the ladder the
  // bot plays now (a running ladder of that variant, event and model), else
  // its margin rating resting on the most sets, else its place rating on the
  // most matches.
  function standingsOf(b, ev) {
    const out = [];
    (b.margin_ratings || []).forEach((r) => {
      const m = r.margin || {};
      if (inEvent(ev, r.event) && (m.sets || 0) > 0) {
        out.push({ model: 'margin', variant: r.variant, event: r.event || '', value: m.mu, unit: r.unit || 'points a deal',
          low: m.low, high: m.high, sets: m.sets || 0, deals: Number(m.deals || 0), faults: r.faults || 0, weight: m.sets || 0,
          provisional: (m.sets || 0) < PROVISIONAL });
      }
    });
    (b.ratings || []).forEach((r) => {
      if (inEvent(ev, r.event) && r.matches > 0) {
        out.push({ model: 'place', variant: r.variant, event: r.event || '', value: r.display, mu: r.mu, sigma: r.sigma,
          matches: r.matches, faults: r.faults || 0, weight: r.matches, provisional: r.matches < PROVISIONAL });
      }
    });
    return out;
  }
  // The model a ladder rates by ("" in an old ladder: its format's).
  function ladderModel(c) { return c.rating_model || (c.format === 'duplicate' ? 'margin' : 'place'); }
  function headlineOf(list, ladders) {
    const plays = (s) => (ladders || []).some((l) => l.running && l.config.variant === s.variant &&
      (l.config.event || '') === s.event && ladderModel(l.config) === s.model);
    const score = (s) => [plays(s) ? 1 : 0, s.model === 'margin' ? 1 : 0, s.event ? 0 : 1, s.weight];
    return list.slice().sort((a, b) => {
      const x = score(a); const y = score(b);
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i] - x[i];
      return 0;
    })[0] || null;
  }
  // "slovenian-4p, open ladders, margin" as text; `names` maps event slugs to names.
  function sourceText(s, names) {
    return s.variant + ' \u00b7 ' + (s.event ? 'event ' + ((names && names[s.event]) || s.event) : 'open ladders') + ' \u00b7 ' +
      (s.model === 'margin' ? 'margin (duplicate sets)' : 'place (single matches)');
  }
  function restsOn(s) {
    return s.model === 'margin' ? T.count(s.sets, 'set') + ', ' + T.count(s.deals, 'deal') : T.count(s.matches, 'rated match', 'rated matches');
  }
  function valueText(s) { return s.model === 'margin' ? signed(s.value, 2) + ' ' + s.unit : num(s.value) + ' (mu \u2212 3 sigma)'; }
  // The leaderboard a standing belongs to, as a link.
  function boardHref(s) {
    return '/leaderboard/' + encodeURIComponent(s.variant) + '?rating_model=' + s.model + (s.event ? '&event=' + encodeURIComponent(s.event) : '');
  }
  // Ranks of `bot` in the boards of `list`: fetched once per board.
  async function ranksOf(list, cache) {
    await Promise.all(list.map(async (s) => {
      const key = s.variant + '|' + s.event + '|' + s.model;
      if (!cache[key]) {
        cache[key] = api('/api/leaderboard?variant=' + encodeURIComponent(s.variant) + '&rating_model=' + s.model +
          (s.event ? '&event=' + encodeURIComponent(s.event) : '')).catch(() => ({ entries: [] }));
      }
      const lb = await cache[key];
      s.of = (lb.entries || []).length;
      s.rank = ((lb.entries || []).find((e) => e.bot === s.bot) || {}).rank || 0;
    }));
  }
  async function eventNames() {
    try {
      const names = {};
      ((await api('/api/events')).events || []).forEach((e) => { names[e.config.slug] = e.config.name || e.config.slug; });
      return names;
    } catch (e) { return {}; }
  }

  async function bots() {
    T.nav('bots');
    setTitle('Bots');
    const ev = T.params().get('event') || '';
    const [all, bar, ladders, names] = await Promise.all([api('/api/bots'), eventBar(), api('/api/ladders'), eventNames()]);
    const list = { bots: (all.bots || []).filter((b) => !ev || (ev === 'open' ? !b.event : (b.events || []).includes(ev))) };
    const heads = {};
    (list.bots || []).forEach((b) => {
      // With an event chosen, its ratings only (each event rates apart).
      const h = headlineOf(standingsOf(b, ev), ladders.ladders);
      if (h) { h.bot = b.name; heads[b.name] = h; }
    });
    await ranksOf(Object.values(heads), {});
    const rows = (list.bots || []).map((b) => {
      const h = heads[b.name];
      return { data: b, cells: [el('span', null, botLink(b.name), dialIn(b), health(b)), el('span', null, b.owner), el('span', { class: 'wrap' }, (b.variants || []).join(', ')),
        h ? el('a', { href: boardHref(h), class: 'standing' }, h.rank ? '#' + h.rank + ' of ' + h.of + ' \u00b7 ' : '',
          el('strong', null, valueText(h)), provisionalMark(h.provisional, h.model)) : el('span', { class: 'muted' }, 'not rated yet'),
        h ? el('span', { class: 'muted standing-source' }, sourceText(h, names)) : '\u2013',
        h ? restsOn(h) : '\u2013'] };
    });
    clear(main).append(head('Bots', (list.bots || []).length + ' active bots' + (ev ? ' in ' + (ev === 'open' ? 'the open ladders' : ev) : '')), el('div', { class: 'panel' }, bar, wrap(table([
      { label: 'Bot', sort: (b) => b.name.toLowerCase() }, { label: 'Owner', sort: (b) => b.owner.toLowerCase() },
      { label: 'Variants', cls: 'wrap' }, { label: 'Standing', cls: 'num' }, { label: 'Ladder and model', cls: 'wrap' },
      { label: 'Rests on', cls: 'num' }], rows,
    { empty: 'No bot registered yet.', reflow: true })),
    el('p', { class: 'legend', id: 'bots-legend' }, 'Standing: the bot\u2019s rank and rating in the ladder it plays now (else its rating resting on the most results), with the ladder (variant and event) and the model it comes from: margin ratings are points a deal above or below the field from duplicate sets; place ratings are mu \u2212 3 sigma from the places of single matches. Each ladder, event and model rates apart; a bot\u2019s page lists them all.')));
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
    if (name === T.HUMAN) {
      // The reserved seat of a person playing in the browser (the server answers 404).
      clear(main).append(head('human is not a bot'), el('div', { class: 'panel', id: 'human' },
        el('p', null, '\u201chuman\u201d is the seat of a person playing against the bots in the browser (',
          el('a', { href: '/play' }, 'Play'), '). Those matches are unrated: they count in no bot\u2019s rating or statistics.'),
        el('p', null, el('a', { href: '/matches?kind=play' }, 'The play matches \u2192'))));
      return;
    }
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
    // Its standings, each from one ladder (variant and event) and one model.
    const [ladders, names] = await Promise.all([api('/api/ladders'), eventNames()]);
    const standings = standingsOf(bot, '');
    standings.forEach((s) => { s.bot = bot.name; });
    await ranksOf(standings, {});
    const top = headlineOf(standings, ladders.ladders);
    const tiles = el('div', { class: 'tiles' },
      top ? el('a', { class: 'tile tile-link', href: boardHref(top), id: 'headline' },
        el('div', { class: 'value' }, top.rank ? '#' + top.rank + ' of ' + top.of : valueText(top)),
        el('div', { class: 'label' }, (top.rank ? valueText(top) + ' \u00b7 ' : '') + sourceText(top, names) + ' \u00b7 ' + restsOn(top)))
        : el('div', { class: 'tile', id: 'headline' }, el('div', { class: 'value' }, '\u2013'), el('div', { class: 'label' }, 'not rated yet')),
      tile('mean decision time', num(stats.mean_decision_ms, 2) + ' ms'),
      tile('decisions', String(stats.decisions)),
      tile('faults', String((stats.faults || []).reduce((a, f) => a + f.count, 0))));
    main.append(tiles);
    const order = (s) => (s === top ? 0 : 1);
    const strows = standings.slice().sort((x, y) => order(x) - order(y) || y.weight - x.weight).map((s) => ({ data: s, cells: [
      el('span', null, T.variantLink(s.variant)), s.event ? el('a', { href: '/events/' + encodeURIComponent(s.event) }, names[s.event] || s.event) : 'open ladders',
      s.model === 'margin' ? 'margin' : 'place',
      s.rank ? el('a', { href: boardHref(s) }, '#' + s.rank + ' of ' + s.of) : '\u2013',
      el('span', null, el('strong', null, s.model === 'margin' ? signed(s.value, 2) : num(s.value)), provisionalMark(s.provisional, s.model)),
      s.model === 'margin' ? el('span', { class: 'interval' }, '[' + signed(s.low, 2) + ', ' + signed(s.high, 2) + ']') : num(s.mu) + ' \u00b1 ' + num(s.sigma),
      s.model === 'margin' ? s.unit : 'mu \u2212 3 sigma', restsOn(s), int(s.faults)] }));
    main.append(el('div', { class: 'panel', id: 'bot-standings' }, el('h2', null, 'Standings'), wrap(table([
      { label: 'Variant' }, { label: 'Event' }, { label: 'Model' }, { label: 'Rank', cls: 'num' }, { label: 'Rating', cls: 'num' },
      { label: 'Interval', cls: 'num', title: 'margin: the 95% interval; place: mu \u00b1 sigma' }, { label: 'Unit' },
      { label: 'Rests on', cls: 'num' }, { label: 'Faults', cls: 'num' }], strows,
    { empty: 'Not rated yet: no rated set or match finished.', reflow: true, cls: 'compact' })),
    el('p', { class: 'legend' }, 'One row per ladder (variant and event) and model, each from its own results: margin ratings are points (chips) a deal above or below the field, from duplicate sets (its hand scores against those of the bots that held the same cards, the radl settlement left out), with the 95% interval; place ratings are mu \u2212 3 sigma (OpenSkill on the places of single matches). Each event rates apart, and neither model is computed from the other.' +
      (strows.some((r) => r.data.model === 'margin') ? ' ' + T.MARGIN_CAP + 'Its results\u2019 per hand (below) is an uncapped mean too.' : ''))));
    // The history of its place ratings (margin ratings keep no history).
    const byVariant = {};
    (bot.history || []).forEach((h) => { (byVariant[h.variant] = byVariant[h.variant] || []).push(h); });
    const variants = Object.keys(byVariant).sort((a, b) => byVariant[b].length - byVariant[a].length);
    if (variants.length) {
      const chartBox = el('div', { id: 'chart' });
      const pick = el('select', { id: 'chart-variant', onchange: () => drawChart(pick.value) }, variants.map((v) => el('option', { value: v }, v)));
      const drawChart = (v) => { clear(chartBox).appendChild(ratingChart(byVariant[v])); };
      main.append(el('div', { class: 'panel' }, el('div', { class: 'page-head' }, el('h2', null, 'Place rating history'), variants.length > 1 ? pick : null),
        chartBox, el('p', { class: 'legend' }, 'Place ratings only: mu (line) with its \u00b1sigma band after each place-rated match.')));
      drawChart(variants[0]);
    }
    // Results per variant: from its finished matches only (one source a row).
    const pct = (a, b) => (b ? Math.round(100 * a / b) + '%' : '\u2013');
    const mean = (a, b) => (b ? signed(a / b, 1) : '\u2013');
    const rrows = (stats.variants || []).map((s) => ({ data: s, cells: [T.variantLink(s.variant), int(s.matches),
      int(s.wins) + ' (' + pct(s.wins, s.matches) + ')', s.matches ? num(s.mean_rank + 1, 2) : '\u2013', int(s.hands),
      s.hands ? signed(Number(s.hand_total) / s.hands, 1) : '\u2013', signed(s.settlement), signed(s.total),
      num(s.mean_decision_ms, 2), int(s.faults)] }));
    main.append(el('div', { class: 'panel', id: 'results' }, el('h2', null, 'Results per variant'), wrap(table([
      { label: 'Variant' }, { label: 'Matches', cls: 'num', title: 'finished matches (tables)' }, { label: 'Wins', cls: 'num' },
      { label: 'Mean place', cls: 'num' }, { label: 'Hands', cls: 'num' },
      { label: 'Per hand', cls: 'num', title: 'mean of its hand scores, without the settlement' },
      { label: 'Settlement', cls: 'num', title: 'end-of-match radl settlement, summed' }, { label: 'Total', cls: 'num' },
      { label: 'ms / dec.', cls: 'num', title: 'mean milliseconds per decision' }, { label: 'Faults', cls: 'num' }], rrows,
    { empty: 'No finished match yet.', reflow: true, cls: 'compact' })),
    el('p', { class: 'legend', id: 'per-hand-legend' }, 'Every finished match it played in the variant, whatever it was for (ladder tables, tournaments, events), not its ratings: matches are tables (a duplicate set counts each of its tables); wins are matches it finished first in. Per hand: the mean of its hand scores (void deals left out), without the end-of-match radl settlement (100 off per radl left), which is its own column; Total = hands + settlement, and places come from the totals. Unrated play matches (',
      el('a', { href: '/play' }, '/play'), ') are not counted.')));
    const srows = (stats.variants || []).map((s) => ({ data: s, cells: [T.variantLink(s.variant),
      int(s.declarer_hands), pct(s.declarer_won, s.declarer_hands), mean(s.declarer_score, s.declarer_hands),
      int(s.defender_hands), pct(s.defender_won, s.defender_hands), mean(s.defender_score, s.defender_hands)] }));
    main.append(
    el('div', { class: 'panel', id: 'sides' }, el('h2', null, 'As declarer and as defender'), wrap(table([
      { label: 'Variant' }, { label: 'Declarer hands', cls: 'num' }, { label: 'won', cls: 'num' }, { label: 'mean score', cls: 'num' },
      { label: 'Defender hands', cls: 'num' }, { label: 'won', cls: 'num' }, { label: 'mean score', cls: 'num' }], srows,
    { empty: 'No finished match yet.', reflow: true })),
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
        return { data: m, cells: [matchLink(m.id), el('span', null, m.variant, m.kind === 'play' ? el('span', { class: 'muted' }, ' (play, unrated)') : null),
          m.status === 'done' && !m.deal_public ? el('span', { class: 'muted', title: 'its deal is still played at another table' }, 'sealed')
            : m.status === 'done' ? String(me.rank + 1) + ' / ' + m.seats.length : badge(m.status),
          m.status === 'done' && m.deal_public ? signed(me.total) : '', finishedAgo(m)] };
      }), { empty: 'No match yet.', reflow: true })), el('p', null, el('a', { href: '/matches?bot=' + encodeURIComponent(bot.name) }, 'All matches of ' + bot.name + ' \u2192')))));
    await faultPanel(bot);
    if (bot.dial_in) await hostedPanel(bot);
  }

  // 33554432 -> "32 MiB", 983040 -> "960 KiB", 1000 -> "1000 bytes".
  function bytesText(n) {
    if (n >= 1048576 && n % 1048576 === 0) return n / 1048576 + ' MiB';
    if (n >= 1048576) return (n / 1048576).toFixed(1) + ' MiB';
    if (n >= 1024 && n % 1024 === 0) return n / 1024 + ' KiB';
    if (n >= 1024) return (n / 1024).toFixed(1) + ' KiB';
    return n + ' bytes';
  }

  // The latest faults with their cause (out of memory, timed out, ...).
  async function faultPanel(bot) {
    let list;
    try { list = await api('/api/bots/' + encodeURIComponent(bot.name) + '/faults'); } catch (e) { return; }
    const faults = list.faults || [];
    if (!faults.length) return;
    main.append(el('div', { class: 'panel', id: 'latest-faults' }, el('h2', null, 'Latest faults'), wrap(table([
      { label: 'Match' }, { label: 'Cause' }, { label: 'Hand', cls: 'num' }, { label: 'Version', cls: 'num hide-sm' },
      { label: 'Detail', cls: 'wrap' }, { label: 'Finished', cls: 'hide-sm' }],
    faults.map((f) => ({ data: f, cells: [matchLink(f.match_id), el('span', { class: 'bad fault-cause' }, f.cause),
      String(f.hand_index + 1), Number(f.version_id) ? 'v' + f.version_id : '\u2013', el('span', { class: 'muted' }, f.detail),
      finishedAgo(f)] })), { reflow: true })),
    el('p', { class: 'legend' }, 'The causes of a hosted bot\u2019s process ending (out of memory, too many processes, killed by the filter, output limit, crashed) come from its bot host; the limits are in ', T.docLink('hosting.md'), '.')));
  }

  // Hosted versions: the list (status; the build log with the bot's token)
  // and the upload form. The token stays in this page (sent only as the
  // Authorization header of these two calls), never in a URL or storage.
  async function hostedPanel(bot) {
    const base = '/api/bots/' + encodeURIComponent(bot.name) + '/versions';
    const token = el('input', { type: 'password', id: 'upload-token', autocomplete: 'off', placeholder: 'the bot\u2019s token', size: 28 });
    const file = el('input', { type: 'file', id: 'upload-file', accept: '.py,.zip,.cc,.cpp,.js,.awk,.sh' });
    const kind = el('select', { id: 'upload-kind' }, ['', 'python', 'cpp', 'stdio'].map((k) => el('option', { value: k }, k || 'by its files')));
    const entry = el('input', { id: 'upload-entry', placeholder: 'entry file (optional)', size: 18 });
    const result = el('div', { id: 'upload-result', role: 'status' });
    const listBox = el('div', { id: 'versions' });
    // This arena's upload limit, from the versions list (32 MiB by default).
    const limit = el('span', { id: 'upload-limit' }, 'at most 32 MiB by default');
    const headers = () => (token.value ? { Authorization: 'Bearer ' + token.value.trim(), Accept: 'application/json' } : { Accept: 'application/json' });
    async function load() {
      let body;
      try {
        const res = await fetch(base, { headers: headers(), cache: 'no-store' });
        body = await res.json();
        if (!res.ok) throw new Error(body.error || ('HTTP ' + res.status));
      } catch (e) { clear(listBox).appendChild(T.errorBox('Could not load the versions: ' + e.message)); return; }
      const versions = body.versions || [];
      if (Number(body.max_upload_bytes) > 0) limit.textContent = 'at most ' + bytesText(Number(body.max_upload_bytes));
      clear(listBox).append(wrap(table([{ label: 'Version' }, { label: 'Status' }, { label: 'Kind' },
        { label: 'Size', cls: 'num' }, { label: 'Uploaded', cls: 'hide-sm' }, { label: 'SHA-256', cls: 'hide-sm' }],
      versions.map((v) => ({ data: v, cells: ['v' + v.id, badge(v.status, v.status === 'ready' ? 'done' : v.status === 'failed' ? 'failed' : 'running'),
        v.kind + (v.interpreter ? ' (' + v.interpreter + ')' : ''), int(v.size), v.uploaded_at + ' UTC', el('code', null, String(v.sha256).slice(0, 12))] })),
      { empty: 'No version uploaded yet: this bot plays only when its own process dials in.', reflow: true })));
      if (token.value.trim() && !body.owner) {
        listBox.append(T.errorBox('That token is not ' + bot.name + '\u2019s: the list is shown without the build logs.'));
      }
      // A version still building with a log: the arena's note that no bot host
      // is connected (shown to anyone, so nobody waits for a build that cannot come).
      versions.filter((v) => v.status === 'building' && v.build_log).slice(0, 1).forEach((v) =>
        listBox.append(el('p', { class: 'notice', id: 'no-host' }, 'v' + v.id + ' is ' + v.build_log)));
      if (body.owner) {
        versions.filter((v) => v.build_log && v.status !== 'building').forEach((v) => listBox.append(el('details', { class: 'build-log' },
          el('summary', null, 'Build log of v' + v.id + ' (' + v.status + ')'), el('pre', null, v.build_log))));
      }
    }
    async function upload(ev) {
      ev.preventDefault();
      const f = file.files && file.files[0];
      if (!token.value.trim()) { clear(result).appendChild(T.errorBox('Paste the bot\u2019s token first.')); return; }
      if (!f) { clear(result).appendChild(T.errorBox('Pick a file: a .py, a .zip, C++ sources or a script.')); return; }
      const q = new URLSearchParams({ filename: f.name });
      if (kind.value) q.set('kind', kind.value);
      if (entry.value.trim()) q.set('entry', entry.value.trim());
      clear(result).append(el('span', { class: 'muted' }, 'Uploading ' + f.name + '\u2026'));
      let res; let body = {};
      try {
        res = await fetch(base + '?' + q.toString(), { method: 'POST', headers: Object.assign(headers(), { 'Content-Type': 'application/octet-stream' }), body: f });
        try { body = await res.json(); } catch (e) { body = {}; }
      } catch (e) { clear(result).appendChild(T.errorBox('The arena does not answer (' + e.message + ')')); return; }
      if (!res.ok) { clear(result).appendChild(T.errorBox('Refused: ' + (body.error || ('HTTP ' + res.status)))); return; }
      // Its status is the list's (kept current there), not a copy that goes stale.
      if (body.unchanged) {  // byte-identical to the bot's current version: nothing stored
        clear(result).append(el('div', { class: 'notice', id: 'upload-ok' }, 'Unchanged: this file is version v' + body.id +
          ', the bot\u2019s current version, byte for byte; nothing new was uploaded.' +
          (body.status === 'building' && body.build_log ? ' It is ' + body.build_log + '.' : '')));
        load();
        return;
      }
      clear(result).append(el('div', { class: 'notice', id: 'upload-ok' }, 'Version v' + body.id + ' uploaded (' + body.kind + ', ' + body.size +
        ' bytes). A bot host builds it; its status is in the list above, and it plays from the bot\u2019s next match once ready.' +
        (body.status === 'building' && body.build_log ? ' Now it is ' + body.build_log + '.' : '')));
      load();
    }
    const form = el('form', { class: 'upload-form', id: 'upload-form', onsubmit: upload },
      el('label', null, 'Token ', token), el('label', null, 'File ', file), el('label', null, 'Kind ', kind),
      el('label', null, 'Entry ', entry), el('button', { type: 'submit', id: 'upload-button' }, 'Upload'),
      el('button', { type: 'button', id: 'show-logs', onclick: load }, 'Show build logs'));
    main.append(el('div', { class: 'panel', id: 'hosted' }, el('h2', null, 'Hosted versions'), listBox,
      el('h3', null, 'Upload a new version'), form, result,
      el('p', { class: 'legend' }, 'A Python bot (a .py or a .zip), C++ sources or a script for python3, node, awk or sh; ', limit,
        ' (the arena\u2019s --max_upload_bytes). The arena never runs it: a bot host builds and plays it in a sandbox (', T.docLink('hosting.md'),
        '). With the token, the list shows each version\u2019s build log.')));
    await load();
  }

  // ---- matches ---------------------------------------------------------------------
  const PAGE_DEFAULT = 50;
  // Paging and filters keep the browser's history: every page of the list is
  // its own URL (pushState), and Back returns to the previous one.
  async function matches() {
    T.nav('matches');
    setTitle('Matches');
    const [st, eventInput] = await Promise.all([api('/api/status'), eventSelect(T.params().get('event') || '')]);
    const field = (label, input) => el('label', null, label, input);
    const f = {
      event: eventInput,
      variant: el('select', { name: 'variant' }, el('option', { value: '' }, 'all'), (st.variants || []).map((v) => el('option', { value: v }, v))),
      bot: el('input', { name: 'bot', placeholder: 'name or part', size: 14 }),
      kind: el('select', { name: 'kind' }, ['', 'ladder', 'tournament', 'play', 'test'].map((k) => el('option', { value: k }, k || 'all'))),
      ladder: el('input', { name: 'ladder', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      tournament: el('input', { name: 'tournament', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      test: el('input', { name: 'test', placeholder: 'id', size: 4, inputmode: 'numeric' }),
      status: el('select', { name: 'status' }, ['', 'done', 'failed', 'running', 'pending'].map((k) => el('option', { value: k }, k || 'all'))),
    };
    let offset = 0;
    // ?limit= (5..200) sets the page's length; 50 by default.
    const PAGE = Math.min(200, Math.max(5, Math.floor(Number(T.params().get('limit'))) || PAGE_DEFAULT));
    function fromUrl() {
      const q = T.params();
      for (const [k, input] of Object.entries(f)) input.value = q.get(k) || '';
      offset = Math.max(0, Math.floor(Number(q.get('offset'))) || 0);
    }
    fromUrl();
    const form = el('form', { class: 'filters', onsubmit: (e) => { e.preventDefault(); offset = 0; load(true); } },
      field('Event', f.event), field('Variant', f.variant), field('Bot', f.bot), field('Kind', f.kind), field('Ladder', f.ladder),
      field('Tournament', f.tournament), field('Test', f.test), field('Outcome', f.status), el('button', { type: 'submit' }, 'Filter'));
    for (const k of ['event', 'variant', 'kind', 'status']) f[k].addEventListener('change', () => { offset = 0; load(true); });
    const info = el('span', { class: 'muted', id: 'page-info' });
    const which = el('div', { class: 'muted', id: 'bot-match' });
    const prev = el('a', { class: 'button secondary', id: 'newer', href: '#' }, '\u2190 Newer');
    const next = el('a', { class: 'button secondary', id: 'older', href: '#' }, 'Older \u2192');
    const go = (e, to) => { e.preventDefault(); if (e.currentTarget.getAttribute('aria-disabled') === 'true') return; offset = to; load(true); };
    prev.addEventListener('click', (e) => go(e, Math.max(0, offset - PAGE)));
    next.addEventListener('click', (e) => go(e, offset + PAGE));
    const list = el('div', { id: 'list' });
    clear(main).append(head('Matches'), el('div', { class: 'panel' }, form, which, list, el('div', { class: 'pager' }, prev, next, info)));
    function query(at) {
      const p = new URLSearchParams();
      for (const [k, input] of Object.entries(f)) if (input.value.trim()) p.set(k, input.value.trim());
      if (at) p.set('offset', String(at));
      if (PAGE !== PAGE_DEFAULT) p.set('limit', String(PAGE));
      return p;
    }
    const pageUrl = (at) => { const p = query(at); return '/matches' + (p.toString() ? '?' + p : ''); };
    function setLink(a, on, at) {
      a.setAttribute('aria-disabled', on ? 'false' : 'true');
      a.classList.toggle('disabled', !on);
      a.href = on ? pageUrl(at) : '#';
    }
    let seq = 0;
    async function load(push) {
      const mine = ++seq;
      if (push) history.pushState({ offset }, '', pageUrl(offset));
      const p = query(offset);
      p.set('limit', String(PAGE));
      let r;
      try { r = await api('/api/matches?' + p); } catch (e) {
        if (mine !== seq) return;
        clear(which);
        clear(list).appendChild(T.errorBox(e.status === 404 ? 'No bot has a name like \u201c' + f.bot.value + '\u201d.' : e.message));
        info.textContent = '';
        setLink(prev, false); setLink(next, false);
        return;
      }
      if (mine !== seq) return;
      const total = Number(r.total);
      // The arena clamps an offset past the end to the last page: show where we are.
      if (Number(r.offset || 0) !== offset) {
        offset = Number(r.offset || 0);
        history.replaceState({ offset }, '', pageUrl(offset));
      }
      const bots = r.bots || [];
      which.textContent = bots.length && !(bots.length === 1 && bots[0].toLowerCase() === f.bot.value.trim().toLowerCase())
        ? 'Bots whose name contains \u201c' + f.bot.value.trim() + '\u201d: ' + bots.join(', ') : '';
      clear(list).appendChild(matchTable(r.matches || [], 'No match passes these filters.'));
      const shown = (r.matches || []).length;
      info.textContent = total && shown ? (offset + 1) + '\u2013' + (offset + shown) + ' of ' + total : (total ? 'no matches on this page, ' + total + ' in all' : 'no matches');
      setLink(prev, offset > 0, Math.max(0, offset - PAGE));
      setLink(next, offset + PAGE < total, offset + PAGE);
    }
    window.addEventListener('popstate', () => { fromUrl(); load(false); });
    await load(false);
  }

  // ---- tournaments -------------------------------------------------------------------
  async function tournaments() {
    T.nav('tournaments');
    setTitle('Tournaments');
    const v = T.params().get('variant');
    const ev = T.params().get('event') || '';
    const [r, bar] = await Promise.all([api('/api/tournaments?limit=500'), eventBar()]);
    const ts = (r.tournaments || []).filter((t) => (!v || t.variant === v) && inEvent(ev, t.event));
    clear(main).append(head('Tournaments', v ? 'variant ' + v : null), el('div', { class: 'panel' }, bar, wrap(table([
      { label: 'Id', cls: 'num', sort: (t) => Number(t.id), desc: true }, { label: 'Name' }, { label: 'Variant' }, { label: 'Format' },
      { label: 'Matches', cls: 'num' }, { label: 'State' }, { label: 'Created', cls: 'hide-sm' }],
    ts.map((t) => ({ data: t, cells: [String(t.id), el('a', { href: '/tournaments/' + t.id }, t.name || ('tournament ' + t.id)),
      t.variant, t.format, t.matches_done + ' / ' + t.matches_total + (t.matches_failed ? ' (' + t.matches_failed + ' failed)' : ''),
      t.finished ? badge('finished', 'done') : badge('running', 'running'), t.created_at] })),
    { empty: 'No tournament yet.', reflow: true }))));
  }

  async function tournamentPage(id) {
    T.nav('tournaments');
    let t;
    try { t = await api('/api/tournaments/' + encodeURIComponent(id)); } catch (e) { showError(e); return; }
    setTitle(t.name || 'Tournament ' + id);
    const seed = t.seed && t.seed !== '0' ? ' \u00b7 organiser\u2019s seed ' + t.seed : '';
    clear(main).append(head(t.name || ('Tournament ' + id), t.variant + ' \u00b7 ' + t.format + ' \u00b7 ' +
      t.matches_done + ' of ' + t.matches_total + ' matches done' + (t.matches_failed ? ', ' + t.matches_failed + ' failed' : '') +
      (t.finished ? ' \u00b7 finished' : ' \u00b7 running')),
    el('p', { class: 'sub muted', id: 'tournament-facts' }, t.deals + (t.deals === 1 ? ' deal' : ' deals') + ' per group of ' + t.seats + ' seats \u00b7 ' +
      t.hands_per_match + ' hands per match' + (t.created_at ? ' \u00b7 created ' + t.created_at + ' UTC' : '') + seed));
    if (T.tournamentWaiting) main.append(T.tournamentWaiting(t));
    // Groups with a hosted bot never meet a deal twice (docs/security.md, "One kernel per deal").
    if (t.deals_note) main.append(el('p', { class: 'sub muted', id: 'tournament-deals' }, t.deals_note));
    const duplicate = /duplicate/.test(t.format || '');
    const elsewhere = (s) => duplicate && s.runs_elsewhere
      ? el('span', { class: 'muted', title: 'runs on its own machine: it could remember a deal from one table of the set to the next' }, ' \u2020') : '';
    const anySettlement = (t.standings || []).some((s) => Number(s.settlement));
    const rows = (t.standings || []).map((s, i) => ({ data: s, cells: [String(i + 1), el('span', null, botLink(s.bot), elsewhere(s)), el('strong', null, signed(s.mean_per_hand, 2)),
      s.ci95 >= 0 ? el('span', { title: '95% interval [' + signed(s.mean_per_hand - s.ci95, 2) + ', ' + signed(s.mean_per_hand + s.ci95, 2) + ']' }, '\u00b1 ' + num(s.ci95, 2)) : '\u2013',
      String(s.hands), signed(s.hand_total), signed(s.settlement), el('strong', null, signed(s.total)),
      s.faults ? el('span', { class: 'bad' }, String(s.faults)) : '0', num(s.mean_rank + 1, 2)] }));
    main.append(el('div', { class: 'panel', id: 'standings' }, el('h2', null, 'Standings'), wrap(table([
      { label: 'Rank', cls: 'num' }, { label: 'Bot' }, { label: 'Mean / hand', cls: 'num', sort: (s) => s.mean_per_hand, desc: true },
      { label: '95% CI \u00b1', cls: 'num' },
      { label: 'Hands', cls: 'num' }, { label: 'Hand scores', cls: 'num', title: 'sum of its hand scores' },
      { label: 'Settlement', cls: 'num', title: 'end-of-match radl settlement: 100 off per radl left' },
      { label: 'Total', cls: 'num', sort: (s) => Number(s.total), desc: true },
      { label: 'Faults', cls: 'num', sort: (s) => s.faults, desc: true },
      { label: 'Mean place', cls: 'num', sort: (s) => s.mean_rank }], rows, { empty: 'No match finished yet.', reflow: true })),
    el('p', { class: 'legend', id: 'standings-legend' }, 'Mean / hand: the mean of its hand scores over its hands (void deals left out), with the half-width of its 95% confidence interval; it does not include the end-of-match radl settlement' +
      (anySettlement ? ' (100 off per radl left), which is its own column' : ' (none applied here)') +
      '. Total = hand scores + settlement; the mean place (1 = first) comes from the totals of its matches.' +
      (duplicate && (t.standings || []).some((s) => s.runs_elsewhere)
        ? ' \u2020 runs on its own machine: in duplicate play such a bot could remember a deal from one table to the next, so its result rests on trust.' : ''))));
    const list = el('div', { id: 'sets' });
    main.append(el('div', { class: 'panel' }, el('h2', null, duplicate ? 'Deals and their tables' : 'Matches'), list));
    const r = await api('/api/matches?limit=1000&tournament=' + encodeURIComponent(id));
    // The tables of a duplicate set share one sealed deal (one commitment):
    // grouped, in the order they were made, with the seed once it is public.
    const order = (m) => Number(String(m.id).split('-').pop()) || 0;
    const ms = (r.matches || []).slice().sort((a, b) => order(a) - order(b));
    const sets = [];
    const byKey = {};
    for (const m of ms) {
      const key = m.seed_commitment || m.id;
      if (!byKey[key]) { byKey[key] = { key, matches: [] }; sets.push(byKey[key]); }
      byKey[key].matches.push(m);
    }
    sets.forEach((set, k) => {
      const m0 = set.matches[0];
      const pub = set.matches.every((m) => m.deal_public);
      const seedText = pub && m0.seed && m0.seed !== '0' ? el('span', { class: 'mono' }, 'seed ' + m0.seed)
        : m0.seed_commitment ? el('span', { class: 'muted', title: 'commitment ' + m0.seed_commitment },
          'seed sealed until every table has played it \u00b7 commitment ', el('span', { class: 'mono' }, m0.seed_commitment.slice(0, 12) + '\u2026'))
          : el('span', { class: 'muted' }, 'seed not yet public');
      list.appendChild(el('div', { class: 'dup-set', dataset: { set: String(k + 1) } },
        el('h3', null, 'Deal ' + (k + 1) + (duplicate ? ' \u00b7 ' + set.matches.length + (set.matches.length === 1 ? ' table' : ' tables') : '') + ' \u00b7 ', seedText),
        matchTable(set.matches, 'No match.')));
    });
    if (!sets.length) list.appendChild(el('p', { class: 'muted' }, 'No match.'));
    if (Number(r.total) > 1000) list.appendChild(el('p', null, el('a', { href: '/matches?tournament=' + id }, 'All ' + r.total + ' matches \u2192')));
    if (!t.finished && T.liveTournament) T.liveTournament(id, () => tournamentPage(id));
  }

  // ---- ladders ----------------------------------------------------------------------
  async function laddersPage() {
    T.nav('ladders');
    setTitle('Ladders');
    const v = T.params().get('variant');
    const ev = T.params().get('event') || '';
    const [r, bar, names] = await Promise.all([api('/api/ladders'), eventBar(), eventNames()]);
    const ls = (r.ladders || []).filter((l) => (!v || l.config.variant === v) && inEvent(ev, l.config.event)).slice().reverse();
    clear(main).append(head('Ladders', v ? 'variant ' + v : 'Rated matches between the bots of a variant, made as long as a ladder runs.'),
      el('div', { class: 'panel' }, bar, wrap(table([{ label: 'Ladder' }, { label: 'Variant' }, { label: 'Event' }, { label: 'Rated by' },
        { label: 'Status' }, { label: 'Matches done', cls: 'num' }],
      ls.map((l) => ({ data: l, cells: [T.ladderLink(l.id), T.variantLink(l.config.variant), eventCell(l.config.event, names),
        ladderKind(l.config), ladderState(l), int(l.matches_done)] })),
      { empty: 'No ladder yet (tarock-arena-cli ladder start).', reflow: true }))));
  }
  function eventCell(slug, names) {
    return slug ? el('a', { href: '/events/' + encodeURIComponent(slug), class: 'ladder-event' }, (names && names[slug]) || slug)
      : el('span', { class: 'muted' }, 'open ladders');
  }
  // "duplicate sets, margin ratings" / "single matches, place ratings".
  function ladderKind(c) {
    return ((c.format || 'match') === 'duplicate' ? 'duplicate sets' : 'single matches') + ' \u00b7 ' + ladderModel(c) + ' ratings';
  }
  function ladderState(l) {
    // A badge, not the pulsing dot of the pages that update live (this one does not).
    return l.running ? badge('running', 'running') : badge('stopped', 'pending');
  }
  async function ladderPage(id) {
    T.nav('ladders');
    const [r, names] = await Promise.all([api('/api/ladders'), eventNames()]);
    const l = (r.ladders || []).find((x) => String(x.id) === String(id));
    if (!l) { T.notFound(main, 'There is no ladder ' + id + '.'); return; }
    const v = l.config.variant;
    const c = l.config;
    const slug = c.event || '';
    const model = ladderModel(c);
    setTitle('Ladder ' + id);
    // Its standings: the ratings of its pool (variant and event) under its model.
    const board = '/api/leaderboard?variant=' + encodeURIComponent(v) + '&rating_model=' + model + (slug ? '&event=' + encodeURIComponent(slug) : '');
    const [lb, recent, failed] = await Promise.all([api(board),
      api('/api/matches?limit=20&ladder=' + encodeURIComponent(id)), api('/api/matches?limit=1&status=failed&ladder=' + encodeURIComponent(id))]);
    const boardPage = '/leaderboard/' + encodeURIComponent(v) + '?rating_model=' + model + (slug ? '&event=' + encodeURIComponent(slug) : '');
    clear(main).append(head('Ladder ' + id, el('span', { id: 'ladder-of' }, T.variantLink(v), ' \u00b7 ',
      slug ? el('span', null, 'event ', eventCell(slug, names)) : 'open ladders', ' \u00b7 ', ladderState(l))),
      el('div', { class: 'tiles' }, tile('matches done', int(l.matches_done), 'ladder-done', '/matches?ladder=' + id + '&status=done'),
        tile('failed', int(failed.total), 'ladder-failed', '/matches?ladder=' + id + '&status=failed'),
        tile('hands per match', c.hands_per_match ? String(c.hands_per_match) : 'default'),
        tile('limit', c.max_matches ? c.max_matches + ' matches' : 'until stopped'),
        tile('format', (c.format || 'match') + ' \u00b7 ' + model + ' ratings', 'ladder-format')));
    // Its bots: every active bot of its field plays (matchmaking); their
    // ratings are the pool's, which this ladder's matches move.
    const margin = lb.rating_model === 'margin';
    const rows = (lb.entries || []).map((e) => ({ data: e, cells: [String(e.rank), botLink(e.bot),
      el('span', null, el('strong', null, margin ? signed(e.rating.display, 2) : num(e.rating.display)), provisionalMark(e.provisional, lb.rating_model)),
      margin ? el('span', { class: 'interval' }, '[' + signed((e.margin || {}).low, 2) + ', ' + signed((e.margin || {}).high, 2) + ']') : num(e.rating.mu) + ' \u00b1 ' + num(e.rating.sigma)]
      .concat(margin ? [vsNext(e)] : [], [margin ? int((e.margin || {}).sets) : int(e.rating.matches), int(e.rating.faults)]) }));
    const where = slug ? 'the event ' + (names[slug] || slug) : 'the open ladders';
    main.append(el('div', { class: 'panel', id: 'ladder-standings', dataset: { event: slug, ratingModel: model } }, el('h2', null, 'Standings'),
      wrap(table([{ label: 'Rank', cls: 'num' }, { label: 'Bot' }, { label: margin ? (lb.unit || 'Points a deal') : 'Rating', cls: 'num' },
        { label: margin ? '95% interval' : 'mu \u00b1 sigma', cls: 'num' }]
        .concat(margin ? [{ label: 'vs next', cls: 'num' }] : [], [
        { label: margin ? 'Rated sets' : 'Rated matches', cls: 'num' },
        { label: 'Faults', cls: 'num' }]), rows, { empty: 'No rated bot in ' + v + ' of ' + where + ' yet.', reflow: true })),
      el('p', { class: 'legend' }, ...T.ratingLegend(margin),
      'These are the ratings of ' + v + ' in ' + where + ', which this ladder\u2019s matches move' + (slug ? '' : ' (with tournaments of ' + v + ')') +
      '; each event rates apart. Every active bot of its field plays in it; a bot that does not answer sits out until it does. ',
      el('a', { href: boardPage }, 'The leaderboard \u2192'))),
    el('div', { class: 'panel' }, el('h2', null, 'Recent matches'), matchTable(recent.matches || [], 'No match yet.'),
      el('p', null, el('a', { href: '/matches?ladder=' + id }, 'All ' + int(recent.total) + ' matches of ladder ' + id + ' \u2192'))));
  }

  // ---- tests (`tarock compare` as an arena job) -------------------------------------------
  function testState(t) {
    if (t.status === 'running') return badge('running', 'running');
    return badge(t.result, t.result === 'error' ? 'failed' : 'done');
  }
  async function testsPage() {
    T.nav('tests');
    setTitle('Tests');
    const r = await api('/api/tests?limit=500');
    clear(main).append(head('Tests', 'candidate against baseline on duplicate deals until the sequential test decides'),
      el('div', { class: 'panel' }, wrap(table([{ label: 'Id', cls: 'num' }, { label: 'Variant' }, { label: 'Candidate' },
        { label: 'Baseline' }, { label: 'Deals', cls: 'num' }, { label: 'Mean / deal', cls: 'num' }, { label: 'LLR', cls: 'num' },
        { label: 'State' }, { label: 'Created', cls: 'hide-sm' }],
      (r.tests || []).map((t) => ({ data: t, cells: [el('a', { href: '/tests/' + t.id }, String(t.id)), t.config.variant,
        botLink(t.config.candidate), botLink(t.config.baseline), int(t.deals), signed(t.mean, 2), num(t.llr, 2), testState(t),
        t.created_at] })), { empty: 'No test yet (tarock-arena-cli test run).', reflow: true }))));
  }
  async function testPage(id) {
    T.nav('tests');
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
    list.appendChild(matchTable(r.matches || [], 'No match.'));
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
      if (parts[0] === 'ladders' && parts.length === 1) return await laddersPage();
      if (parts[0] === 'ladders' && parts.length === 2) return await ladderPage(parts[1]);
      if (parts[0] === 'tests' && parts.length === 2) return await testPage(parts[1]);
      if (T.routeEvents && await T.routeEvents(parts, main)) return;  // events.js
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
