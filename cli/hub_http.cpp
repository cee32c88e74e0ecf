// HTTP GET over libcurl (hub_http.h).
#include "hub_http.h"

#include <algorithm>
#include <cctype>

#ifdef VRAMLENS_HAVE_CURL
#include <curl/curl.h>
#endif

namespace vl::cli {

std::string url_origin(const std::string& url) {
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return {};
    std::string scheme = url.substr(0, scheme_end);
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (scheme != "http" && scheme != "https") return {};
    const size_t host_start = scheme_end + 3;
    std::string host = url.substr(host_start, url.find_first_of("/?#", host_start) - host_start);
    if (const size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);  // user:pass@ is not the host
    std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const size_t colon = host.rfind(':');
    const bool has_port = colon != std::string::npos && host.find(']', colon) == std::string::npos;
    if (!has_port) host += scheme == "https" ? ":443" : ":80";
    return scheme + "://" + host;
}

std::string resolve_location(const std::string& base, const std::string& location) {
    if (location.find("://") != std::string::npos) return location;
    const size_t scheme_end = base.find("://");
    if (scheme_end == std::string::npos) return location;
    if (location.rfind("//", 0) == 0) return base.substr(0, scheme_end + 1) + location;
    const size_t path_start = base.find('/', scheme_end + 3);
    const std::string root = path_start == std::string::npos ? base : base.substr(0, path_start);
    if (!location.empty() && location[0] == '/') return root + location;
    std::string dir = path_start == std::string::npos ? "/" : base.substr(path_start, base.find_first_of("?#", path_start) - path_start);
    dir = dir.substr(0, dir.rfind('/') + 1);
    return root + dir + location;
}

#ifdef VRAMLENS_HAVE_CURL

namespace {

struct Sink {
    HttpResponse* r;
    uint64_t max_body;
    std::string location;
    bool truncated = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* s = static_cast<Sink*>(user);
    const size_t len = size * n;
    const uint64_t room = s->max_body > s->r->body.size() ? s->max_body - s->r->body.size() : 0;
    s->r->body.append(data, static_cast<size_t>(std::min<uint64_t>(room, len)));
    if (len > room) {
        s->truncated = true;
        return 0;  // enough: stop the transfer
    }
    return len;
}

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* s = static_cast<Sink*>(user);
    const std::string line(data, size * n);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return size * n;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string value = trim(line.substr(colon + 1));
    if (name == "x-error-code") s->r->x_error_code = value;
    else if (name == "retry-after") s->r->retry_after = value;
    else if (name == "content-range") s->r->content_range = value;
    else if (name == "content-length") s->r->content_length = value;
    else if (name == "location") s->location = value;
    return size * n;
}

struct CurlGlobal {
    CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
    ~CurlGlobal() { curl_global_cleanup(); }
};

}  // namespace

bool http_available() { return true; }

HttpResponse http_get(const std::string& url, const std::string& range, const std::string& token, const std::string& token_origin,
                      uint64_t max_body) {
    static CurlGlobal global;
    std::string at = url;
    for (int hop = 0;; ++hop) {
        HttpResponse r;
        r.url = at;
        Sink sink{&r, max_body, {}};
        CURL* c = curl_easy_init();
        if (!c) {
            r.error = "libcurl could not start a request";
            return r;
        }
        curl_slist* headers = nullptr;
        std::string auth, range_header;
        if (!token.empty() && !token_origin.empty() && url_origin(at) == token_origin) {
            auth = "Authorization: Bearer " + token;
            headers = curl_slist_append(headers, auth.c_str());
        }
        if (!range.empty()) {
            range_header = "Range: bytes=" + range;
            headers = curl_slist_append(headers, range_header.c_str());
        }
        headers = curl_slist_append(headers, "Accept-Encoding: identity");
        const std::string agent = std::string("vramlens/") + VRAMLENS_VERSION;
        curl_easy_setopt(c, CURLOPT_URL, at.c_str());
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_USERAGENT, agent.c_str());
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
        curl_easy_setopt(c, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kHubConnectTimeoutS);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, kHubTotalTimeoutS);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
        const CURLcode rc = curl_easy_perform(c);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(c);
        if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && sink.truncated)) {
            r.status = 0;
            r.error = curl_easy_strerror(rc);
            return r;
        }
        r.status = static_cast<int>(status);
        const bool redirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
        if (!redirect || sink.location.empty()) return r;
        if (hop + 1 >= kHubMaxRedirects) {
            r.status = 0;
            r.error = "too many redirects (more than " + std::to_string(kHubMaxRedirects) + ")";
            return r;
        }
        const std::string next = resolve_location(at, sink.location);
        if (url_origin(next).empty()) {
            r.status = 0;
            r.error = "a redirect to a non-HTTP address (" + next + ")";
            return r;
        }
        at = next;
    }
}

#else

bool http_available() { return false; }

HttpResponse http_get(const std::string& url, const std::string&, const std::string&, const std::string&, uint64_t) {
    HttpResponse r;
    r.url = url;
    r.error = "this vramlens was built without network support (libcurl)";
    return r;
}

#endif

}  // namespace vl::cli
