// Where the CLI sends the Hub token (cli/hub_http.h): only to the endpoint's origin, compared as
// scheme://host:port [rfc3986 §3.2], and where a redirect's Location leads [rfc3986 §5.2].
#include <catch2/catch.hpp>

#include "hub_http.h"

using namespace vl::cli;

TEST_CASE("hub http: an origin is scheme, host and port, the default port written out", "[hub]") {
    CHECK(url_origin("https://huggingface.co/org/name/resolve/main/config.json") == "https://huggingface.co:443");
    CHECK(url_origin("HTTPS://HuggingFace.CO") == "https://huggingface.co:443");
    CHECK(url_origin("http://127.0.0.1:8080/x?y") == "http://127.0.0.1:8080");
    CHECK(url_origin("http://127.0.0.1/x") == "http://127.0.0.1:80");
    CHECK(url_origin("https://user:pw@cdn.example/x") == "https://cdn.example:443");
    CHECK(url_origin("file:///etc/passwd").empty());
    CHECK(url_origin("not a url").empty());
    // The CDN host of a redirect is another origin: the token is not sent there.
    CHECK(url_origin("https://cas-bridge.xethub.hf.co/x") != url_origin("https://huggingface.co/x"));
    CHECK(url_origin("http://127.0.0.1:8001/x") != url_origin("http://127.0.0.1:8002/x"));
    CHECK(url_origin("http://huggingface.co/x") != url_origin("https://huggingface.co/x"));
}

TEST_CASE("hub http: a redirect's Location, absolute or relative, as an absolute URL", "[hub]") {
    const std::string base = "https://huggingface.co/org/name/resolve/main/config.json";
    CHECK(resolve_location(base, "https://cdn.example/a/b?sig=1") == "https://cdn.example/a/b?sig=1");
    CHECK(resolve_location(base, "/api/resolve-cache/models/org/name/abc/config.json?etag=1") ==
          "https://huggingface.co/api/resolve-cache/models/org/name/abc/config.json?etag=1");
    CHECK(resolve_location(base, "//other.example/x") == "https://other.example/x");
    CHECK(resolve_location(base, "other.json") == "https://huggingface.co/org/name/resolve/main/other.json");
    CHECK(resolve_location("http://127.0.0.1:9", "/x") == "http://127.0.0.1:9/x");
}
