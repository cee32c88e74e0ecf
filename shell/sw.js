// The service worker (index.html registers it once the app runs): the second visit works offline.
// cmake/assemble_site.cmake fills in the cache name (a hash of the site) and the files to keep, all
// under content-hashed names but the page itself. The page: the network first, the kept copy when
// offline. The other files: the kept copy first (a new build has new names and a new cache).
"use strict";
var CACHE = "vramlens-" + /*@VL_VERSION@*/"dev";
var FILES = /*@VL_FILES@*/["./"];
var scope = new URL("./", self.location).href;
self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(CACHE).then(function (c) { return c.addAll(FILES); }));
});
self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("vramlens-") === 0 && k !== CACHE; })
                           .map(function (k) { return caches.delete(k); }));
  }));
});
self.addEventListener("fetch", function (e) {
  var r = e.request, u = new URL(r.url), path = u.origin + u.pathname;
  if (r.method !== "GET" || path.indexOf(scope) !== 0) return;
  if (r.mode === "navigate") {
    if (path !== scope && path !== scope + "index.html") return;
    e.respondWith(fetch(r).then(function (res) {
      var copy = res.clone();
      if (res.ok) caches.open(CACHE).then(function (c) { return c.put(scope, copy); });
      return res;
    }).catch(function () {
      return caches.match(scope).then(function (hit) { return hit || Response.error(); });
    }));
  } else if (FILES.indexOf(path.slice(scope.length)) > 0) {
    e.respondWith(caches.match(path).then(function (hit) { return hit || fetch(r); }));
  } else if (/\.[0-9a-f]{10}\.(ttf|txt)$/.test(path)) {  // the Chinese font or messages, fetched when needed: kept once fetched
    e.respondWith(caches.match(path).then(function (hit) {
      return hit || fetch(r).then(function (res) {
        var copy = res.clone();
        if (res.ok) caches.open(CACHE).then(function (c) { return c.put(path, copy); });
        return res;
      });
    }));
  }
});
