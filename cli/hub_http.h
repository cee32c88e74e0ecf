// HTTP GET for reading checkpoint headers from the Hugging Face Hub (issue 17), over libcurl when the
// build has it (VRAMLENS_HAVE_CURL). One request at a time, no retries: the caller turns a failure
// into hub_error_message (core/model/hub_reference.h).
//
// Redirects are followed here, not by libcurl, so that the token is sent only where it belongs: the
// Authorization header goes to `token_origin` (the Hub endpoint's scheme://host:port) and never to
// another host a redirect names (the Hub sends LFS and Xet files from a CDN host) [hf-hub-client].
// A Range header is sent on every hop. Timeouts: 10 s to connect, 60 s per request.
#pragma once
#include <cstdint>
#include <string>

namespace vl::cli {

inline constexpr long kHubConnectTimeoutS = 10;
inline constexpr long kHubTotalTimeoutS = 60;
inline constexpr int kHubMaxRedirects = 5;

struct HttpResponse {
    int status = 0;           // 0: no answer (error says why)
    std::string error;        // the transport error ("Couldn't connect to server", a timeout)
    std::string body;         // at most max_body bytes of it
    std::string url;          // the URL that answered (after redirects)
    std::string x_error_code, retry_after, content_range, content_length;
};

// Whether this build can make requests (it was built with libcurl).
bool http_available();

// GET url, with "Range: bytes=<range>" when range is not empty and "Authorization: Bearer <token>"
// on requests to token_origin. Stops reading the body after max_body bytes.
HttpResponse http_get(const std::string& url, const std::string& range, const std::string& token, const std::string& token_origin,
                      uint64_t max_body);

// "scheme://host[:port]" of a URL, lower case, the default port written out; "" when not http(s).
std::string url_origin(const std::string& url);
// `location` (absolute, or relative to `base`) as an absolute URL.
std::string resolve_location(const std::string& base, const std::string& location);

}  // namespace vl::cli
