// A tiny cmi5 LMS with its xAPI LRS, in memory, for the tests: what an LMS does around one AU
// launch (cmi5 spec sections 8 and 10) and the xAPI resources an AU uses.
//
//   POST <origin>/lms/fetch/<key>         the auth token, once ("auth-token"); then error-code 1
//   <origin>/lms/xapi/statements           POST (one or an array) and PUT ?statementId=: kept in order
//   <origin>/lms/xapi/activities/state     GET (one, or without stateId the list of ids), PUT, POST
//                                          (merge), DELETE: documents by activity, agent,
//                                          registration and stateId (LMS.LaunchData among them)
//   <origin>/lms/xapi/agents/profile       GET cmi5LearnerPreferences: the learner's preferences
//
// Every xAPI request must carry `Authorization: Basic <a token the fetch URL gave>` and an
// X-Experience-API-Version header (401 / 400 otherwise); CORS headers go on every answer, so the
// LRS may also be another origin than the package's. `launch()` does what an LMS does before it
// launches an AU: a registration (or the one given), a session id, the LMS.LaunchData document,
// the "launched" statement, a fetch URL, and the launch URL with the cmi5 query parameters.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

export const CMI5 = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
export const EXT = 'https://w3id.org/xapi/cmi5/context/extensions/';
export const SESSION_ID = `${EXT}sessionid`;

const stateKey = (q) =>
  JSON.stringify([
    q.get('activityId'),
    JSON.parse(q.get('agent') ?? 'null'),
    q.get('registration') ?? '',
    q.get('stateId'),
  ]);

/** The LMS's state: {statements: [{statement, by: 'lms'|'au', session}], states, requests, handle, launch, waitFor}. */
export function createLms() {
  const tokens = new Map(); // token -> session
  const fetchKeys = new Map(); // key -> {token, used}
  const waiters = [];
  const lms = {
    origin: null, // the LRS's origin, set by listen()
    statements: [],
    states: new Map(),
    requests: [], // {method, path, status}
  };

  const settle = () => {
    for (const w of [...waiters])
      if (w.pred(lms.statements)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(lms.statements);
      }
  };
  const keep = (statement, by, session) => {
    const s = { id: randomUUID(), stored: new Date().toISOString(), ...statement };
    lms.statements.push({ statement: s, by, session });
    settle();
    return s.id;
  };

  /**
   * Resolves with the statements once pred(statements) holds (asked again on every statement and
   * every state document written); rejects after `guardMs` (a hang guard of ten minutes, never what
   * decides a test) naming the verbs received.
   */
  lms.waitFor = (pred, guardMs = 10 * 60 * 1000) =>
    new Promise((ok, fail) => {
      const w = { pred, ok };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(w), 1);
        const got = lms.statements.map((r) => `${r.session.slice(0, 8)} ${r.statement.verb?.id?.replace(/^.*\//, '')}`);
        fail(new Error(`the LRS did not get what was waited for in ${guardMs} ms; it has: ${got.join(', ')}`));
      }, guardMs);
      w.ok = (v) => {
        clearTimeout(timer);
        ok(v);
      };
      waiters.push(w);
      settle();
    });

  lms.launch = ({
    launchUrl,
    auId,
    activityId = `${lms.origin}/lms/activities/${randomUUID()}`,
    registration = randomUUID(),
    actor = { objectType: 'Agent', account: { homePage: lms.origin, name: `learner-${randomUUID().slice(0, 8)}` } },
    launchMode = 'Normal',
    moveOn = 'Passed',
    masteryScore,
    returnURL,
  }) => {
    const session = randomUUID();
    const contextTemplate = {
      contextActivities: { grouping: [{ objectType: 'Activity', id: auId }] },
      extensions: { [SESSION_ID]: session },
    };
    const launchData = {
      contextTemplate,
      launchMode,
      moveOn,
      ...(masteryScore === undefined ? {} : { masteryScore }),
      ...(returnURL ? { returnURL } : {}),
    };
    const q = new URLSearchParams({
      activityId,
      agent: JSON.stringify(actor),
      registration,
      stateId: 'LMS.LaunchData',
    });
    lms.states.set(stateKey(q), { type: 'application/json', body: JSON.stringify(launchData) });
    keep(
      {
        actor,
        verb: { id: 'http://adlnet.gov/expapi/verbs/launched', display: { 'en-US': 'launched' } },
        object: { objectType: 'Activity', id: activityId },
        context: {
          registration,
          contextActivities: { category: [{ id: CMI5 }], grouping: contextTemplate.contextActivities.grouping },
          extensions: {
            [SESSION_ID]: session,
            [`${EXT}launchmode`]: launchMode,
            [`${EXT}launchurl`]: launchUrl,
            [`${EXT}moveon`]: moveOn,
            ...(masteryScore === undefined ? {} : { [`${EXT}masteryscore`]: masteryScore }),
          },
        },
        timestamp: new Date().toISOString(),
      },
      'lms',
      session,
    );
    const token = Buffer.from(`au:${randomUUID()}`).toString('base64');
    tokens.set(token, session);
    const key = randomUUID();
    fetchKeys.set(key, { token, used: false });
    const url = new URL(launchUrl);
    for (const [k, v] of Object.entries({
      endpoint: `${lms.origin}/lms/xapi/`,
      fetch: `${lms.origin}/lms/fetch/${key}`,
      actor: JSON.stringify(actor),
      registration,
      activityId,
    }))
      url.searchParams.set(k, v);
    return { url: url.href, session, activityId, registration, actor, auId, launchMode, masteryScore };
  };

  /** Answers the request if it is the LMS's; false otherwise. */
  lms.handle = async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (!url.pathname.startsWith('/lms/fetch/') && !url.pathname.startsWith('/lms/xapi/')) return false;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString('utf8');
    const cors = {
      'Access-Control-Allow-Origin': req.headers.origin ?? '*',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match',
      'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'Access-Control-Expose-Headers': 'ETag, X-Experience-API-Version',
    };
    const answer = (status, out = null, type = 'application/json') => {
      lms.requests.push({ method: req.method, path: url.pathname, status });
      res.writeHead(status, { ...cors, ...(out === null ? {} : { 'Content-Type': type }) });
      res.end(out === null ? undefined : typeof out === 'string' ? out : JSON.stringify(out));
      return true;
    };
    if (req.method === 'OPTIONS') return answer(204);

    if (url.pathname.startsWith('/lms/fetch/')) {
      if (req.method !== 'POST') return answer(405, { error: 'the fetch URL takes POST' });
      const entry = fetchKeys.get(url.pathname.slice('/lms/fetch/'.length));
      if (!entry) return answer(200, { 'error-code': '2', 'error-text': 'unknown fetch URL' });
      if (entry.used)
        return answer(200, { 'error-code': '1', 'error-text': 'The authorization token has already been returned.' });
      entry.used = true;
      return answer(200, { 'auth-token': entry.token });
    }

    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const session = tokens.get(auth);
    if (!session) return answer(401, 'no valid auth token', 'text/plain');
    if (!req.headers['x-experience-api-version']) return answer(400, 'X-Experience-API-Version missing', 'text/plain');
    const resource = url.pathname.slice('/lms/xapi/'.length);

    if (resource === 'statements') {
      let parsed;
      try {
        parsed = JSON.parse(body);
      } catch {
        return answer(400, 'the body is not JSON', 'text/plain');
      }
      if (req.method === 'PUT') {
        keep({ ...parsed, id: url.searchParams.get('statementId') }, 'au', session);
        return answer(204);
      }
      if (req.method !== 'POST') return answer(405, 'statements: POST or PUT', 'text/plain');
      const ids = (Array.isArray(parsed) ? parsed : [parsed]).map((s) => keep(s, 'au', session));
      return answer(200, ids);
    }
    if (resource === 'activities/state') {
      if (req.method === 'GET' && !url.searchParams.has('stateId')) {
        const whose = JSON.stringify(JSON.parse(stateKey(url.searchParams)).slice(0, 3));
        const keys = [...lms.states.keys()].map((k) => JSON.parse(k));
        return answer(
          200,
          keys.filter((k) => JSON.stringify(k.slice(0, 3)) === whose).map((k) => k[3]),
        );
      }
      const key = stateKey(url.searchParams);
      const doc = lms.states.get(key);
      if (req.method === 'GET')
        return doc ? answer(200, doc.body, doc.type) : answer(404, 'no such document', 'text/plain');
      if (req.method === 'DELETE') {
        lms.states.delete(key);
        return answer(204);
      }
      const type = req.headers['content-type'] ?? 'application/octet-stream';
      if (req.method === 'POST' && doc)
        lms.states.set(key, { type, body: JSON.stringify({ ...JSON.parse(doc.body), ...JSON.parse(body) }) });
      else lms.states.set(key, { type, body });
      settle(); // a waiter may be waiting for a document
      return answer(204);
    }
    if (
      resource === 'agents/profile' &&
      req.method === 'GET' &&
      url.searchParams.get('profileId') === 'cmi5LearnerPreferences'
    )
      return answer(200, { languagePreference: 'en-US', audioPreference: 'off' });
    return answer(404, `no resource ${resource}`, 'text/plain');
  };

  /** The AU's document `stateId` for a launch, parsed, or null. */
  lms.state = (launch, stateId) => {
    const q = new URLSearchParams({
      activityId: launch.activityId,
      agent: JSON.stringify(launch.actor),
      registration: launch.registration,
      stateId,
    });
    const doc = lms.states.get(stateKey(q));
    return doc ? JSON.parse(doc.body) : null;
  };

  /** The statements of one session, in the order received. */
  lms.session = (session) => lms.statements.filter((r) => r.session === session).map((r) => r.statement);
  return lms;
}

/** An LMS alone on a port of its own: {lms, origin, close}. */
export async function listenLms(lms = createLms()) {
  const server = createServer((req, res) => {
    lms.handle(req, res).then((done) => {
      if (!done) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  lms.origin = `http://127.0.0.1:${server.address().port}`;
  const close = () =>
    new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections?.();
    });
  return { lms, origin: lms.origin, close };
}
