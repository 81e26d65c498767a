// The cmi5 client's transport once the session has started: an axios adapter that sends each
// request with fetch and keepalive, so that a request made as the page goes away (the
// "terminated" statement on pagehide) still reaches the LMS, where the client's own
// XMLHttpRequest would be cancelled with its page. What is sent is the client's: the URL, the
// method, the headers (the auth token, the xAPI version) and the body it made.

/** An axios adapter over `fetchFn` with keepalive, answering as axios's own adapters do. */
export function keepaliveAdapter(fetchFn = (...args) => globalThis.fetch(...args)) {
  return async (config) => {
    const raw = typeof config.headers?.toJSON === 'function' ? config.headers.toJSON() : { ...config.headers };
    const headers = Object.fromEntries(
      Object.entries(raw).filter(([, v]) => v !== undefined && v !== null && v !== false),
    );
    const fail = (message, response) => Object.assign(new Error(message), { isAxiosError: true, config, response });
    let res;
    try {
      res = await fetchFn(config.url, {
        method: String(config.method ?? 'get').toUpperCase(),
        headers,
        body: config.data ?? undefined,
        keepalive: true,
      });
    } catch (e) {
      throw fail(e.message);
    }
    const response = {
      data: await res.text(),
      status: res.status,
      statusText: res.statusText,
      headers: Object.fromEntries(res.headers),
      config,
      request: null,
    };
    if (!config.validateStatus || config.validateStatus(res.status)) return response;
    throw fail(`Request failed with status code ${res.status}`, response);
  };
}
