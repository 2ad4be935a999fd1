// Events (docs/events.md): /events (running, upcoming, past), /events/SLUG
// (overview, schedule with a countdown, leaderboards, matches, results, and
// the organiser's roster and export once the organiser token is given), and
// the sign-up page /join and /join/CODE. app.js's router hands these paths
// here (window.tarock.routeEvents). Tokens never go into a URL: the
// organiser's stays in this tab's sessionStorage and travels as an
// Authorization header; an entrant's is shown once, on the page that made it.
(function () {
  'use strict';
  const T = window.tarock;
  const { el, clear, api, num, signed, int, botLink, matchLink, badge, table } = T;
  let timers = [];

  function stopTimers() { timers.forEach((t) => clearInterval(t)); timers = []; }
  function setTitle(t) { document.title = t + ' \u00b7 Tarock Arena'; }
  function wrap(node) { return el('div', { class: 'table-wrap' }, node); }
  function utc(text) {
    if (!text) return null;
    const t = Date.parse(String(text).replace(' ', 'T').replace(/Z?$/, 'Z'));
    return Number.isNaN(t) ? null : t;
  }
  // "3 d 4 h", "5 h 12 min", "4 min 09 s", "12 s".
  function span(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d) return d + ' d ' + h + ' h';
    if (h) return h + ' h ' + m + ' min';
    if (m) return m + ' min ' + String(s % 60).padStart(2, '0') + ' s';
    return (s % 60) + ' s';
  }
  // The next milestone of an event and when it is, or null.
  function nextMilestone(e) {
    const s = (e.config && e.config.schedule) || {};
    const now = Date.now();
    // Registration that closes at the deadline is the deadline's milestone.
    const steps = [['Registration opens', utc(s.registration_opens)], ['Registration closes', utc(s.registration_closes)],
      ['Deadline: entries freeze and the final starts', utc(s.deadline)]];
    for (const [label, t] of steps) if (t && t > now) return { label, t };
    return null;
  }
  function countdown(e) {
    const node = el('span', { class: 'countdown', id: 'countdown' });
    function tick() {
      const m = nextMilestone(e);
      node.textContent = m ? m.label + ' in ' + span(m.t - Date.now()) + ' (' + new Date(m.t).toISOString().replace('T', ' ').slice(0, 16) + ' UTC)' : '';
    }
    tick();
    timers.push(setInterval(tick, 1000));
    return node;
  }
  function plural(n, one, many) { n = Number(n || 0); return n + ' ' + (n === 1 ? one : (many || one + 's')); }
  function statusBadge(status) { return badge(status, status === 'open' ? 'running' : status === 'finished' ? 'done' : status); }

  async function authed(path, token, opts) {
    const res = await fetch(path, Object.assign({ headers: { Accept: 'application/json', Authorization: 'Bearer ' + token }, cache: 'no-store' }, opts || {}));
    if (!res.ok) {
      let body = null;
      try { body = await res.json(); } catch (e) { body = null; }
      const err = new Error((body && body.error) || ('HTTP ' + res.status));
      err.status = res.status;
      throw err;
    }
    return res;
  }

  // ---- /events --------------------------------------------------------------------------
  async function list(main) {
    T.nav('events');
    setTitle('Events');
    const r = await api('/api/events');
    const events = r.events || [];
    const groups = { Running: [], Upcoming: [], Past: [] };
    for (const e of events) {
      if (e.status === 'upcoming') groups.Upcoming.push(e);
      else if (e.status === 'finished' || e.status === 'closed') groups.Past.push(e);
      else groups.Running.push(e);
    }
    clear(main).append(el('div', { class: 'page-head' }, el('div', null, el('h1', null, 'Events'),
      el('div', { class: 'sub' }, 'Classes and competitions, each with its own field, ladder and results. Got an invite code? ',
        el('a', { href: '/join' }, 'Join an event \u2192')))));
    for (const [title, rows] of Object.entries(groups)) {
      main.append(el('div', { class: 'panel' }, el('h2', null, title),
        wrap(table([{ label: 'Event' }, { label: 'Kind' }, { label: 'Status' }, { label: 'Variants', cls: 'hide-sm' },
          { label: 'Entrants', cls: 'num' }, { label: 'Next', cls: 'wrap' }],
        rows.map((e) => {
          const m = nextMilestone(e);
          return { data: e, cells: [el('a', { href: '/events/' + encodeURIComponent(e.config.slug) }, e.config.name || e.config.slug),
            e.config.kind, statusBadge(e.status), (e.config.variants || []).join(', '), int(e.entrants),
            m ? m.label + ' in ' + span(m.t - Date.now()) : ''] };
        }), { empty: 'None.', reflow: true }))));
    }
  }

  // ---- /events/SLUG ------------------------------------------------------------------------
  async function page(main, slug) {
    T.nav('events');
    if (slug === 'open') { window.location.replace('/leaderboard'); return; }
    const e = await api('/api/events/' + encodeURIComponent(slug));
    const c = e.config;
    setTitle(c.name || slug);
    clear(main).append(el('div', { class: 'page-head' }, el('div', null, el('h1', null, c.name || slug),
      el('div', { class: 'sub' }, c.kind + ' \u00b7 ', statusBadge(e.status), ' \u00b7 ' + (c.variants || []).join(', ') + ' \u00b7 ' +
        plural(e.entrants, 'entrant') + ', ' + plural(e.bots, 'bot') + ', ' + plural(e.ladder_matches, 'ladder match', 'ladder matches') +
        (c.hosted_only ? ' \u00b7 hosted bots only' : '')))));
    const s = c.schedule || {};
    main.append(el('div', { class: 'panel', id: 'overview' },
      c.description ? el('p', { class: 'description' }, c.description) : null,
      el('p', null, countdown(e)),
      el('ul', { class: 'schedule' },
        el('li', null, 'Registration opens: ' + (s.registration_opens ? s.registration_opens + ' UTC' : 'at creation')),
        el('li', null, 'Registration closes: ' + (s.registration_closes || s.deadline ? (s.registration_closes || s.deadline) + ' UTC' : 'when the organiser closes the event')),
        el('li', null, 'Deadline (entries freeze, the final runs): ' + (s.deadline ? s.deadline + ' UTC' : 'none: a standing event')),
        e.frozen_at ? el('li', null, 'Entries froze at ' + e.frozen_at + ' UTC') : null,
        Number(e.final_matches_planned) ? el('li', null, 'The final would take ' + e.final_matches_planned + ' matches with today\u2019s field') : null),
      e.note ? el('p', { class: 'muted' }, e.note) : null,
      e.status === 'open' || e.status === 'upcoming'
        ? el('p', null, 'Entrants sign up with the invite code from the organiser: ', el('a', { href: '/join' }, 'join \u2192')) : null));
    if ((e.results || []).length) {
      main.append(el('div', { class: 'panel', id: 'results' }, el('h2', null, 'Final standings'),
        el('p', { class: 'muted' }, 'Points (chips) a deal in the final: each bot\u2019s mean hand score (a duplicate tournament, the radl settlement apart' +
          (Number(e.final_tournament_id) ? ', ' : ''), Number(e.final_tournament_id) ? el('a', { href: '/tournaments/' + e.final_tournament_id }, 'its matches') : null,
          ') with its 95% interval and the deals it rests on; the place follows it. Margin: the same tables rated as duplicate sets (each bot\u2019s score against the others who held the same cards), points a deal relative to the final\u2019s field, with its 95% interval. ' + T.MARGIN_CAP + '"Unfrozen": a bot that runs on its owner\u2019s machine, which the arena cannot freeze at the deadline.'),
        wrap(table([{ label: '#', cls: 'num' }, { label: 'Bot' }, { label: 'Entrant' }, { label: 'A deal', cls: 'num' },
          { label: '95% interval', cls: 'num' }, { label: 'Deals', cls: 'num' }, { label: 'Margin', cls: 'num' },
          { label: 'Margin 95%', cls: 'num' }, { label: 'Faults', cls: 'num' }, { label: '' }],
        e.results.map((r) => {
          const m = r.margin || {};
          return { data: r, cells: [int(r.place), botLink(r.bot), r.entrant || 'house bot', signed(r.mean, 2),
            el('span', { class: 'interval' }, '[' + signed(r.mean - r.ci95, 2) + ', ' + signed(r.mean + r.ci95, 2) + ']'), int(r.deals || r.hands),
            [signed(m.mu || 0, 2), r.unseparated_from_next ? el('span', { class: 'muted', title: 'its interval overlaps the next margin\u2019s: not separated' }, ' \u2248') : null],
            el('span', { class: 'interval' }, '[' + signed(m.low || 0, 2) + ', ' + signed(m.high || 0, 2) + ']'), int(r.faults || 0),
            el('span', { class: 'muted' }, [r.frozen ? '' : 'unfrozen', r.note || ''].filter(Boolean).join('; '))] };
        }), { reflow: true })),
        e.status !== 'finished' ? el('p', { class: 'notice' }, 'The final is still running: these standings are not final.') : null));
    }
    if ((e.left_out || []).length) {
      const over = e.status === 'frozen' || e.status === 'finished' || e.status === 'closed';
      main.append(el('div', { class: 'panel', id: 'left-out' },
        el('h2', null, over ? 'Left out of the final' : 'Offline: not in the final unless back before the deadline'),
        el('ul', null, e.left_out.map((x) => el('li', null, botLink(x.bot), x.entrant ? ' (' + x.entrant + ')' : '', ': ' + x.reason)))));
    }
    if ((e.pairs || []).length) {
      main.append(el('div', { class: 'panel', id: 'pairs' }, el('h2', null, 'Pairs in the final'),
        el('p', { class: 'muted' }, 'Points a hand of each bot at the tables the two shared and at its other tables, the biggest joint gain first: two entries that help each other gain together. Chance alone moves these numbers too; look at pairs far above the rest.'),
        wrap(table([{ label: 'Pair' }, { label: 'Matches together', cls: 'num', title: 'matches (a table in one seating) both played: the final\u2019s plan counts tables, each played in every seating' }, { label: 'A with / without', cls: 'num hide-sm' },
          { label: 'B with / without', cls: 'num hide-sm' }, { label: 'Joint gain', cls: 'num' }],
        e.pairs.slice(0, 10).map((p) => ({ data: p, cells: [[botLink(p.a), ' + ', botLink(p.b)], int(p.matches_together),
          signed(p.a_with, 1) + ' / ' + signed(p.a_without, 1), signed(p.b_with, 1) + ' / ' + signed(p.b_without, 1),
          signed(p.joint_gain, 1)] })), { reflow: true }))));
    }
    // Each ladder: duplicate sets rated on margins (points a deal) once the
    // field can fill a set, matches rated on places until then; the line
    // under its title says which, and why.
    const plans = {};
    for (const l of e.ladders || []) plans[l.variant] = l;
    for (const v of c.variants || []) {
      const board = await api('/api/leaderboard?variant=' + encodeURIComponent(v) + '&event=' + encodeURIComponent(slug));
      const plan = plans[v];
      const note = plan && plan.note ? el('p', { class: 'muted ladder-note' }, plan.note.charAt(0).toUpperCase() + plan.note.slice(1) + '.') : null;
      const otherModel = board.rating_model === 'margin' ? 'place' : 'margin';
      const other = el('p', { class: 'muted' }, 'Both histories are kept: ', el('a', { href: '/leaderboard/' + encodeURIComponent(v) +
        '?rating_model=' + otherModel + '&event=' + encodeURIComponent(slug) }, 'the ' + otherModel + ' ratings'), '.');
      let t;
      if (board.rating_model === 'margin') {
        t = table([{ label: '#', cls: 'num' }, { label: 'Bot' }, { label: 'Owner', cls: 'hide-sm' },
          { label: board.unit || 'Points a deal', cls: 'num' }, { label: '95% interval', cls: 'num hide-sm' },
          { label: 'vs next', cls: 'num' }, { label: 'Deals', cls: 'num' }],
        (board.entries || []).map((x) => {
          const m = x.margin || {};
          return { data: x, cells: [int(x.rank), botLink(x.bot), x.owner, el('span', null, signed(m.mu, 2), T.provisionalMark(x.provisional, 'margin')),
            el('span', { class: 'interval' }, '[' + signed(m.low, 2) + ', ' + signed(m.high, 2) + ']'),
            T.vsNext(x),
            int(m.deals)] };
        }), { empty: 'No duplicate set booked yet.', reflow: true });
        t.classList.add('margin-board');
      } else {
        t = table([{ label: '#', cls: 'num' }, { label: 'Bot' }, { label: 'Owner', cls: 'hide-sm' }, { label: 'Rating', cls: 'num' },
          { label: 'Matches', cls: 'num' }],
        (board.entries || []).map((x) => ({ data: x, cells: [int(x.rank), botLink(x.bot), x.owner,
          el('span', null, num(x.rating.display, 2), T.provisionalMark(x.provisional, 'place')), int(x.rating.matches)] })), { empty: 'No rated match yet.' });
      }
      main.append(el('div', { class: 'panel ladder-panel', 'data-variant': v, 'data-rating-model': board.rating_model || 'place' },
        el('h2', null, 'Ladder: ' + v), note, wrap(t), el('p', { class: 'legend ladder-legend' }, ...T.ratingLegend(board.rating_model === 'margin')), other));
    }
    const m = await api('/api/matches?limit=20&event=' + encodeURIComponent(slug));
    main.append(el('div', { class: 'panel' }, el('h2', null, 'Recent matches'),
      wrap(table([{ label: 'Match' }, { label: 'Kind' }, { label: 'Status' }, { label: 'Seats', cls: 'wrap' }],
        (m.matches || []).map((x) => ({ data: x, cells: [matchLink(x.id), x.kind, badge(x.status, x.status),
          (x.seats || []).map((st) => st.bot).join(', ')] })), { empty: 'No match yet.' }))));
    main.append(organiserPanel(slug));
  }

  // The organiser's part: roster, invite link and exports, with the token
  // kept in this tab only.
  function organiserPanel(slug) {
    const key = 'tarock-organiser-' + slug;
    const box = el('div');
    const input = el('input', { type: 'password', id: 'organiser-token', placeholder: 'organiser token', autocomplete: 'off' });
    async function show(token) {
      clear(box);
      let roster;
      try {
        roster = await (await authed('/api/events/' + encodeURIComponent(slug) + '/roster', token)).json();
      } catch (err) {
        box.append(T.errorBox(err.message));
        sessionStorage.removeItem(key);
        return;
      }
      sessionStorage.setItem(key, token);
      const link = window.location.origin + '/join/' + roster.invite_code;
      box.append(el('p', null, 'Invite link for your entrants: ', el('code', { id: 'invite-link' }, link)),
        wrap(table([{ label: 'Entrant' }, { label: 'Joined', cls: 'hide-sm' }, { label: 'Last change', cls: 'hide-sm' }, { label: 'Bots', cls: 'wrap' }],
          (roster.entrants || []).map((x) => ({ data: x, cells: [x.name, x.joined_at, x.updated_at,
            (x.bots || []).length ? (x.bots || []).map((b, i) => [i ? ', ' : '', botLink(b.name), ' ' + (b.health || ''),
              Number(b.newest_version) ? el('span', { class: b.newest_version_status === 'failed' ? 'bad upload-status' : 'muted upload-status' },
                ' \u00b7 upload v' + b.newest_version + ' ' + (b.newest_version_status === 'failed' ? 'failed to build' : b.newest_version_status)) : null])
              : el('span', { class: 'muted' }, 'no bot yet')] })),
          { empty: 'Nobody has signed up yet.', reflow: true })));
      for (const fmt of ['csv', 'json']) {
        box.append(el('button', { class: 'button', type: 'button', onclick: async () => {
          const res = await authed('/api/events/' + encodeURIComponent(slug) + '/export?format=' + fmt, token);
          const url = URL.createObjectURL(await res.blob());
          const a = el('a', { href: url, download: slug + '.' + fmt });
          document.body.appendChild(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 10000);
        } }, 'Export ' + fmt.toUpperCase()), ' ');
      }
    }
    const saved = sessionStorage.getItem(key);
    if (saved) show(saved);
    return el('div', { class: 'panel', id: 'organiser' }, el('h2', null, 'For the organiser'),
      el('form', { class: 'inline-form', onsubmit: (ev) => { ev.preventDefault(); if (input.value) show(input.value.trim()); } },
        input, ' ', el('button', { class: 'button', type: 'submit' }, 'Show the roster')), box);
  }

  // Register a bot with the entrant token, and upload a hosted bot's file
  // (POST /api/events/SLUG/bots, POST /api/bots/NAME/versions): a student
  // needs a browser and nothing else (issue 47). Tokens stay in this page.
  function registerBot(slug, entrantToken, line, hostedOnly) {
    const m = / register (\S+) .*--variants (\S+)/.exec(line || '');
    const nameInput = el('input', { id: 'bot-name', name: 'bot', value: m ? m[1] : '', maxlength: '64', required: true });
    const variants = m ? m[2].split(',') : [];
    const kind = el('select', { id: 'bot-kind', name: 'kind' },
      hostedOnly ? null : el('option', { value: 'dial_in' }, 'dial-in: my program connects to the arena'),
      el('option', { value: 'hosted' }, 'hosted: I upload my code, the arena runs it'));
    const out = el('div', { id: 'bot-result' });
    const form = el('form', { class: 'stack-form', onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      let res, body = null;
      try {
        res = await fetch('/api/events/' + encodeURIComponent(slug) + '/bots', { method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + entrantToken },
          body: JSON.stringify({ name: nameInput.value.trim(), variants, hosted: kind.value === 'hosted' }) });
        body = await res.json();
      } catch (err) { out.append(T.errorBox('The arena does not answer: ' + err.message)); return; }
      if (!res.ok) { out.append(T.errorBox((body && body.error) || ('HTTP ' + res.status))); return; }
      form.remove();
      const bot = body.bot.name, botToken = body.token;
      const where = ' --arena ' + (/--arena (\S+)/.exec(line || '') || [, location.hostname + ':7700'])[1];
      out.append(el('div', { class: 'notice' },
        el('p', null, 'Bot ', el('a', { href: '/bots/' + encodeURIComponent(bot) }, bot), ' is registered. Its token (shown once: copy it now):'),
        el('pre', { id: 'bot-token' }, botToken),
        kind.value === 'hosted'
          ? el('p', null, 'Upload its code here (a .py file, or a .zip with tarock.json), or: TAROCK_BOT_TOKEN=... python3 -m tarock_bot upload ' + bot + ' my_bot.py' + where)
          : el('p', null, 'Connect it from your machine:'),
        kind.value === 'hosted' ? uploadForm(bot, botToken)
          : el('pre', { class: 'wrap-pre' }, 'export TAROCK_BOT_TOKEN=' + botToken + '\npython3 -m tarock_bot connect my_bot.py' + where)));
    } },
    el('label', null, 'Bot name', nameInput), el('label', null, 'How it plays', kind),
    el('button', { class: 'button', type: 'submit' }, 'Register the bot'));
    return el('div', { class: 'panel', id: 'register-bot' }, el('h2', null, 'Register your bot'), form, out);
  }
  function uploadForm(bot, botToken) {
    const file = el('input', { type: 'file', id: 'bot-file', name: 'file', required: true });
    const out = el('div', { id: 'upload-result' });
    return el('form', { class: 'stack-form', onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      const f = file.files[0];
      if (!f) return;
      let res, body = null;
      try {
        res = await fetch('/api/bots/' + encodeURIComponent(bot) + '/versions?filename=' + encodeURIComponent(f.name),
          { method: 'POST', headers: { 'Authorization': 'Bearer ' + botToken }, body: f });
        // A refusal over the size limit (413) is one plain-text line.
        const text = await res.text();
        try { body = JSON.parse(text); } catch (e) { body = { error: text.trim() }; }
      } catch (err) { out.append(T.errorBox('The arena does not answer: ' + err.message)); return; }
      if (!res.ok) { out.append(T.errorBox((body && body.error) || ('HTTP ' + res.status))); return; }
      if (body.unchanged) {  // byte-identical to the bot's current version: nothing stored
        out.append(el('p', { class: 'notice' }, 'Version ' + body.id + ' is this very file (' + body.status +
          '): nothing new was uploaded. ', el('a', { href: '/bots/' + encodeURIComponent(bot) }, 'Its page'),
          ' shows its versions and builds.'));
        return;
      }
      out.append(el('p', { class: 'notice' }, 'Version ' + body.id + ' uploaded: ' + body.status +
        (body.status === 'building' ? (body.build_log ? ' (' + body.build_log + '). ' : ' (a bot host builds it). ') : '. '),
        el('a', { href: '/bots/' + encodeURIComponent(bot) }, 'Its page'), ' shows its versions and builds.'));
    } }, el('label', null, 'Code', file), el('button', { class: 'button', type: 'submit' }, 'Upload'), out);
  }

  // ---- /join, /join/CODE ----------------------------------------------------------------------------
  function join(main, code) {
    T.nav('events');
    setTitle('Join an event');
    const codeInput = el('input', { id: 'join-code', name: 'code', value: code || '', placeholder: 'invite code', autocomplete: 'off', required: true });
    const nameInput = el('input', { id: 'join-name', name: 'name', placeholder: 'your name', maxlength: '64', required: true });
    const out = el('div', { id: 'join-result' });
    const form = el('form', { class: 'stack-form', onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      let res, body = null;
      try {
        res = await fetch('/api/events/join', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: codeInput.value.trim(), name: nameInput.value.trim() }) });
        body = await res.json();
      } catch (err) {
        out.append(T.errorBox('The arena does not answer: ' + err.message));
        return;
      }
      if (!res.ok) { out.append(T.errorBox((body && body.error) || ('HTTP ' + res.status))); return; }
      form.remove();
      const hostedOnly = / --hosted\b/.test(body.connect_line);
      // The event by its name (the answer names its slug), and the arena's
      // address as the handed-out lines name it (--public_address).
      let eventName = body.event;
      try { eventName = ((await api('/api/events/' + encodeURIComponent(body.event))).config || {}).name || body.event; } catch (e) { /* the slug then */ }
      const address = (/--arena (\S+)/.exec(body.connect_line || '') || [])[1];
      out.append(el('div', { class: 'notice' },
        el('p', { id: 'welcome' }, 'Welcome, ', el('strong', null, body.entrant), '. You are in ', el('a', { href: '/events/' + encodeURIComponent(body.event) }, eventName), '.',
          address ? [' Your bot plays on the arena at ', el('code', { id: 'arena-address' }, address), ': register it here, then start it on your machine with the line this page gives you (a dial-in bot), or upload its code (a hosted bot).'] : null),
        el('p', null, 'Your entrant token (shown once: copy it now; your organiser can issue a new one):'),
        el('pre', { id: 'entrant-token' }, body.token),
        el('p', null, 'Register your bot below, or on your machine with only the Python SDK (pip install tarock_bot-*.whl) by pasting these lines; they name this arena and keep the token out of the command line:'),
        el('pre', { class: 'wrap-pre', id: 'connect-line' }, body.connect_line)),
        registerBot(body.event, body.token, body.connect_line, hostedOnly));
    } },
    el('label', null, 'Invite code', codeInput), el('label', null, 'Your name (as your organiser should see it)', nameInput),
    el('button', { class: 'button', type: 'submit' }, 'Join'));
    clear(main).append(el('div', { class: 'page-head' }, el('div', null, el('h1', null, 'Join an event'),
      el('div', { class: 'sub' }, 'Your teacher or organiser gave you an invite code or link.'))),
    el('div', { class: 'panel' }, form, out));
  }

  // The router's hook: true when the path is one of these pages.
  T.routeEvents = async function (parts, main) {
    stopTimers();
    if (parts[0] === 'events' && parts.length === 1) { await list(main); return true; }
    if (parts[0] === 'events' && parts.length === 2) { await page(main, parts[1]); return true; }
    if (parts[0] === 'join' && parts.length <= 2) { join(main, parts[1]); return true; }
    return false;
  };
})();
