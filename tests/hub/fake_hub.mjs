// A local imitation of the Hugging Face Hub endpoints vramlens uses (issue 17). Node, no dependencies.
//
//   import { startFakeHub } from './fake_hub.mjs';
//   import { buildRepos } from './fixtures.mjs';
//   const hub = await startFakeHub({ repos: buildRepos() });
//   // hub.endpoint: "http://127.0.0.1:<port>" (set HF_ENDPOINT to it, or the page's test option)
//   // hub.cdn:      "http://127.0.0.1:<port>" (where LFS files are served from)
//   // hub.log:      every request: { host: 'hub' | 'cdn', method, url, headers, origin, status }
//   await hub.close();
//
// Two HTTP servers on 127.0.0.1, on ports the system picks:
//   Hub  GET  /api/models/{org}/{name}[/revision/{rev}]   JSON { id, modelId, sha, siblings: [{ rfilename }],
//             gated, private, safetensors?: { parameters: { DTYPE: n }, total } } (safetensors only when
//             the repo has *.safetensors files; counts are elements per dtype of every file's header)
//        GET|HEAD /{org}/{name}/resolve/{rev}/{file}      small (non-LFS) files: 200 with the file,
//             ETag, X-Repo-Commit; LFS files (*.safetensors, *.gguf): 302 to the CDN host with
//             X-Linked-Size, X-Linked-Etag, ETag, X-Repo-Commit, as the Hub redirects to its LFS/Xet storage
//        OPTIONS any path: the CORS preflight
//   CDN  GET|HEAD /{org}/{name}/{sha}/{file}?expires=...  the file; Range: bytes=a-b (a-, -n) -> 206
//             with Content-Range: bytes a-b/total; a range past the end -> 416 bytes */total; a repo
//             with noRanges: 200 and the whole file whatever the Range
// Revisions: "main", each repo's other named revisions (test-org/dense-tiny has "refs/pr/1", which
// arrives percent-encoded as refs%2Fpr%2F1, as huggingface_hub sends it) and each revision's sha.
// Errors, with X-Error-Code as the Hub sends them [hf-hub-client]:
//   unknown repo        401 RepoNotFound without Authorization, 404 RepoNotFound with it
//   unknown revision    404 RevisionNotFound
//   unknown file        404 EntryNotFound
//   gated repo          401 GatedRepo without a token, 403 GatedRepo with a token that is not the
//                       repo's; the API answers (the model card is public), the files do not
//   repo.alwaysStatus   that status on every Hub request (429 with Retry-After: repo.retryAfter)
// CORS: the Hub echoes the request's Origin (Vary: Origin) and exposes the headers a client reads
// (Content-Range, X-Linked-Size, X-Error-Code, X-Repo-Commit, ...); the CDN allows any origin. The
// preflight allows the Authorization and Range headers. Both hosts answer CORS on every response.
import http from 'node:http';

const EXPOSE = 'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';

function cors(host, req) {
  const origin = req.headers.origin;
  const h = { 'Access-Control-Expose-Headers': EXPOSE };
  if (host === 'hub') {
    h['Access-Control-Allow-Origin'] = origin ?? '*';
    h.Vary = 'Origin';
    if (origin) h['Access-Control-Allow-Credentials'] = 'true';
  } else {
    h['Access-Control-Allow-Origin'] = '*';
  }
  return h;
}

function preflight(host, req, res) {
  res.writeHead(204, {
    ...cors(host, req),
    'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Authorization, Range, Content-Type',
    'Access-Control-Max-Age': '86400',
  });
  res.end();
}

function decodeSegment(s) {
  try { return decodeURIComponent(s); } catch { return null; }
}

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start; let end;
  if (m[1] === '') { start = Math.max(0, size - Number(m[2])); end = size - 1; }
  else { start = Number(m[1]); end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1); }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export async function startFakeHub({ repos }) {
  const log = [];
  let cdnBase = '';
  const record = (host, req) => {
    const entry = { host, method: req.method, url: req.url, headers: { ...req.headers }, origin: req.headers.origin ?? null, status: 0 };
    log.push(entry);
    return entry;
  };

  const send = (host, req, res, entry, status, headers, body) => {
    entry.status = status;
    const buf = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    res.writeHead(status, { ...cors(host, req), 'Content-Length': String(buf.length), ...headers });
    res.end(req.method === 'HEAD' ? undefined : buf);
  };
  const fail = (req, res, entry, status, code, message) =>
    send('hub', req, res, entry, status, { 'Content-Type': 'application/json', ...(code ? { 'X-Error-Code': code } : {}), 'X-Error-Message': message }, { error: message });

  const bearer = (req) => {
    const a = req.headers.authorization;
    return a && a.startsWith('Bearer ') ? a.slice(7) : null;
  };
  // The repo's answer to a request, or it has been sent (an error).
  const access = (req, res, entry, repoId, { files }) => {
    const repo = repos[repoId];
    const token = bearer(req);
    if (!repo) {
      if (token) fail(req, res, entry, 404, 'RepoNotFound', 'Repository not found');
      else fail(req, res, entry, 401, 'RepoNotFound', 'Invalid username or password.');
      return null;
    }
    if (repo.alwaysStatus) {
      send('hub', req, res, entry, repo.alwaysStatus, { 'Content-Type': 'application/json', ...(repo.retryAfter ? { 'Retry-After': String(repo.retryAfter) } : {}) },
        { error: 'You have been rate-limited; you can retry this action later.' });
      return null;
    }
    if (files && repo.gated && token !== repo.token) {
      if (token) fail(req, res, entry, 403, 'GatedRepo', `Access to model ${repoId} is restricted and you are not in the authorized list. Visit https://huggingface.co/${repoId} to ask for access.`);
      else fail(req, res, entry, 401, 'GatedRepo', `Access to model ${repoId} is restricted. You must have access to it and be authenticated to access it. Please log in.`);
      return null;
    }
    return repo;
  };
  const revisionSha = (repo, rev) => repo.revisions[rev] ?? (Object.values(repo.revisions).includes(rev) ? rev : null);

  const hub = http.createServer((req, res) => {
    const entry = record('hub', req);
    if (req.method === 'OPTIONS') { entry.status = 204; preflight('hub', req, res); return; }
    if (req.method !== 'GET' && req.method !== 'HEAD') { send('hub', req, res, entry, 405, {}, 'method not allowed'); return; }
    const path = req.url.split('?')[0];
    const seg = path.split('/').slice(1);
    if (seg[0] === 'api' && seg[1] === 'models' && seg.length >= 4) {
      const repoId = `${seg[2]}/${seg[3]}`;
      const repo = access(req, res, entry, repoId, { files: false });
      if (!repo) return;
      let rev = 'main';
      if (seg.length >= 6 && seg[4] === 'revision') rev = decodeSegment(seg.slice(5).join('/'));
      else if (seg.length !== 4) { fail(req, res, entry, 404, null, 'Not found'); return; }
      const commit = rev === null ? null : revisionSha(repo, rev);
      if (!commit) { fail(req, res, entry, 404, 'RevisionNotFound', `Invalid rev id: ${rev}`); return; }
      const names = Object.keys(repo.files).sort();
      const info = { _id: commit.slice(0, 24), id: repo.id, modelId: repo.id, sha: commit, private: false, gated: repo.gated, siblings: names.map((rfilename) => ({ rfilename })) };
      const st = names.filter((n) => n.endsWith('.safetensors'));
      if (st.length) {
        const parameters = {};
        let total = 0;
        for (const n of st) {
          const f = repo.files[n];
          const len = Number(f.head.readBigUInt64LE(0));
          for (const [k, t] of Object.entries(JSON.parse(f.head.subarray(8, 8 + len).toString('latin1')))) {
            if (k === '__metadata__') continue;
            const e = t.shape.reduce((a, b) => a * b, 1);
            parameters[t.dtype] = (parameters[t.dtype] ?? 0) + e;
            total += e;
          }
        }
        info.safetensors = { parameters, total };
      }
      send('hub', req, res, entry, 200, { 'Content-Type': 'application/json; charset=utf-8' }, info);
      return;
    }
    const r = seg.indexOf('resolve');
    if (r === 2 && seg.length >= 5) {
      const repoId = `${seg[0]}/${seg[1]}`;
      const repo = access(req, res, entry, repoId, { files: true });
      if (!repo) return;
      const rev = decodeSegment(seg[3]);
      const commit = rev === null ? null : revisionSha(repo, rev);
      if (!commit) { fail(req, res, entry, 404, 'RevisionNotFound', `Invalid rev id: ${rev}`); return; }
      const name = seg.slice(4).map(decodeSegment).join('/');
      const file = repo.files[name];
      if (!file) { fail(req, res, entry, 404, 'EntryNotFound', `Entry not found`); return; }
      const etag = `"${commit.slice(0, 8)}-${name.length}-${file.size}"`;
      if (file.lfs) {
        const location = `${cdnBase}/${repo.id}/${commit}/${seg.slice(4).join('/')}?expires=4102444800`;
        send('hub', req, res, entry, 302, { Location: location, 'X-Linked-Size': String(file.size), 'X-Linked-Etag': etag, ETag: etag, 'X-Repo-Commit': commit, 'Content-Type': 'text/plain; charset=utf-8' },
          `Found. Redirecting to ${location}`);
        return;
      }
      send('hub', req, res, entry, 200, { ETag: etag, 'X-Repo-Commit': commit, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' }, file.read(0, file.size));
      return;
    }
    fail(req, res, entry, 404, null, 'Not found');
  });

  const cdn = http.createServer((req, res) => {
    const entry = record('cdn', req);
    if (req.method === 'OPTIONS') { entry.status = 204; preflight('cdn', req, res); return; }
    const seg = req.url.split('?')[0].split('/').slice(1);
    const repo = seg.length >= 4 ? repos[`${seg[0]}/${seg[1]}`] : null;
    const file = repo && Object.values(repo.revisions).includes(seg[2]) ? repo.files[seg.slice(3).map(decodeSegment).join('/')] : null;
    if (!file) { send('cdn', req, res, entry, 404, { 'Content-Type': 'text/plain' }, 'NoSuchKey'); return; }
    const base = { 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream', ETag: `"${seg[2].slice(0, 8)}"` };
    if (req.headers.range && !repo.noRanges) {
      const range = parseRange(req.headers.range, file.size);
      if (range === 'unsatisfiable') { send('cdn', req, res, entry, 416, { ...base, 'Content-Range': `bytes */${file.size}` }); return; }
      if (range) {
        send('cdn', req, res, entry, 206, { ...base, 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` }, file.read(range.start, range.end + 1));
        return;
      }
    }
    // A whole file: streamed in pieces (a GGUF's virtual zeros are never held at once).
    entry.status = 200;
    res.writeHead(200, { ...cors('cdn', req), ...base, 'Content-Length': String(file.size) });
    if (req.method === 'HEAD') { res.end(); return; }
    let at = 0;
    const pump = () => {
      while (at < file.size) {
        const next = Math.min(file.size, at + (1 << 16));
        const ok = res.write(file.read(at, next));
        at = next;
        if (!ok) { res.once('drain', pump); return; }
      }
      res.end();
    };
    pump();
  });

  const endpoint = await listen(hub);
  cdnBase = await listen(cdn);
  return {
    endpoint,
    cdn: cdnBase,
    log,
    close: () => Promise.all([hub, cdn].map((s) => new Promise((resolve) => { s.closeAllConnections?.(); s.close(() => resolve()); }))),
  };
}
