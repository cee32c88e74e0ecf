// What people type to name a Hub model, the URLs built from it, and the messages for the Hub's
// answers (core/model/hub_reference.h). Expected URLs follow huggingface_hub's hf_hub_url
// [hf-hub-client]: revision quoted with no safe characters, file name keeping "/".
#include <catch2/catch.hpp>

#include <string>

#include "model/hub_reference.h"

using namespace vl;

namespace {

HubReference ok(std::string_view text, std::string_view endpoint = {}) {
    Result<HubReference> r = parse_hub_reference(text, endpoint);
    INFO(text);
    for (const FieldError& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    return *r;
}

std::string error_of(std::string_view text, std::string_view endpoint = {}) {
    Result<HubReference> r = parse_hub_reference(text, endpoint);
    INFO(text);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].field == "model");
    return r.errors[0].message;
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("hub reference: repo ids, revisions and huggingface.co URLs", "[hub]") {
    CHECK(ok("meta-llama/Llama-3.1-8B") == HubReference{"meta-llama/Llama-3.1-8B", "main", ""});
    CHECK(ok("  Qwen/Qwen2.5-32B-Instruct-AWQ \n") == HubReference{"Qwen/Qwen2.5-32B-Instruct-AWQ", "main", ""});
    CHECK(ok("org/name@v1.0") == HubReference{"org/name", "v1.0", ""});
    CHECK(ok("org/name@refs/pr/1") == HubReference{"org/name", "refs/pr/1", ""});
    CHECK(ok("org/name@0123456789abcdef0123456789abcdef01234567").revision == "0123456789abcdef0123456789abcdef01234567");

    CHECK(ok("https://huggingface.co/Qwen/Qwen2.5-32B-Instruct-AWQ") == HubReference{"Qwen/Qwen2.5-32B-Instruct-AWQ", "main", ""});
    CHECK(ok("https://huggingface.co/Qwen/Qwen2.5-32B-Instruct-AWQ/") == HubReference{"Qwen/Qwen2.5-32B-Instruct-AWQ", "main", ""});
    CHECK(ok("http://huggingface.co/org/name") == HubReference{"org/name", "main", ""});
    CHECK(ok("huggingface.co/org/name") == HubReference{"org/name", "main", ""});
    CHECK(ok("HTTPS://HuggingFace.co/org/name") == HubReference{"org/name", "main", ""});
    CHECK(ok("https://hf.co/org/name") == HubReference{"org/name", "main", ""});
    CHECK(ok("https://huggingface.co/org/name/tree/dev") == HubReference{"org/name", "dev", ""});
    CHECK(ok("https://huggingface.co/org/name/tree/main/subfolder") == HubReference{"org/name", "main", ""});
    CHECK(ok("https://huggingface.co/org/name/tree/refs%2Fpr%2F3") == HubReference{"org/name", "refs/pr/3", ""});
    CHECK(ok("https://huggingface.co/org/name/blob/main/model-Q4_K_M.gguf") == HubReference{"org/name", "main", "model-Q4_K_M.gguf"});
    CHECK(ok("https://huggingface.co/org/name/resolve/main/q4/model%20a.gguf?download=true") ==
          HubReference{"org/name", "main", "q4/model a.gguf"});
    CHECK(ok("https://huggingface.co/org/name/blob/abc123/config.json#L3") == HubReference{"org/name", "abc123", "config.json"});
    // The endpoint given (HF_ENDPOINT or the test Hub) is a Hub host too.
    CHECK(ok("http://127.0.0.1:8123/test-org/gguf-tiny/resolve/main/tiny.gguf", "http://127.0.0.1:8123") ==
          HubReference{"test-org/gguf-tiny", "main", "tiny.gguf"});
    CHECK(ok("http://127.0.0.1:8123/test-org/gguf-tiny", "http://127.0.0.1:8123/") == HubReference{"test-org/gguf-tiny", "main", ""});
}

TEST_CASE("hub reference: anything else is an error naming the model field and the expected forms", "[hub]") {
    CHECK(contains(error_of(""), "expected a Hugging Face repo id \"org/name\""));
    CHECK(contains(error_of("llama-3.1-8b"), "two names joined by \"/\""));
    CHECK(contains(error_of("a/b/c"), "two names joined by \"/\""));
    CHECK(contains(error_of("org/na me"), "only letters, digits"));
    CHECK(contains(error_of("org/-name"), "cannot start or end"));
    CHECK(contains(error_of("org/na--me"), "\"--\""));
    CHECK(contains(error_of("org/name@"), "the revision after \"@\" is empty"));
    CHECK(contains(error_of("org/name@a..b"), "is not a branch, tag or commit"));
    CHECK(contains(error_of("org/" + std::string(100, 'a')), "at most 96 characters"));
    CHECK(contains(error_of("https://example.com/org/name"), "is not a huggingface.co address"));
    CHECK(contains(error_of("https://huggingface.co/datasets/org/name"), "is a dataset, not a model"));
    CHECK(contains(error_of("https://huggingface.co/spaces/org/name"), "is a Space, not a model"));
    CHECK(contains(error_of("https://huggingface.co/org"), "expected a Hugging Face repo id"));
    CHECK(contains(error_of("https://huggingface.co/org/name/commits/main"), "/tree/<revision>, /blob/<revision>/<file>"));
    CHECK(contains(error_of("https://huggingface.co/org/name/resolve/main"), "names no file after the revision"));
    CHECK(contains(error_of("https://huggingface.co/org/name/resolve/main/../x"), "no empty, \".\" or \"..\" parts"));
    CHECK(contains(error_of("https://huggingface.co/org/name/tree/%zz"), "broken %-escape"));
}

TEST_CASE("hub reference: which texts are meant for the Hub", "[hub]") {
    CHECK(looks_like_hub_reference("org/name"));
    CHECK(looks_like_hub_reference("org/name@dev"));
    CHECK(looks_like_hub_reference("https://huggingface.co/org/name"));
    CHECK(looks_like_hub_reference("http://127.0.0.1:9/x/y", "http://127.0.0.1:9"));
    CHECK_FALSE(looks_like_hub_reference("llama-3.1-8b"));
    CHECK_FALSE(looks_like_hub_reference("./model"));
    CHECK_FALSE(looks_like_hub_reference("/abs/path/model"));
    CHECK_FALSE(looks_like_hub_reference("../x"));
    CHECK_FALSE(looks_like_hub_reference("https://example.com/x/y"));
}

TEST_CASE("hub URLs: revision fully percent-encoded, file keeps its folders", "[hub]") {
    const HubReference pr{"org/name", "refs/pr/1", ""};
    CHECK(hub_file_url("https://huggingface.co", pr, "config.json") == "https://huggingface.co/org/name/resolve/refs%2Fpr%2F1/config.json");
    CHECK(hub_api_url("https://huggingface.co/", pr) == "https://huggingface.co/api/models/org/name/revision/refs%2Fpr%2F1");
    const HubReference main{"Qwen/Qwen2.5-7B", "main", ""};
    CHECK(hub_file_url("", main, "sub dir/model-00001-of-00002.safetensors") ==
          "https://huggingface.co/Qwen/Qwen2.5-7B/resolve/main/sub%20dir/model-00001-of-00002.safetensors");
    CHECK(hub_api_url("http://127.0.0.1:8123", main) == "http://127.0.0.1:8123/api/models/Qwen/Qwen2.5-7B/revision/main");
    CHECK(hub_percent_encode("a b/c?d#e%f~g", false) == "a%20b%2Fc%3Fd%23e%25f~g");
    CHECK(hub_percent_encode("a b/c", true) == "a%20b/c");
}

TEST_CASE("hub errors: one message per cause, each ending with the offline alternative", "[hub]") {
    const std::string offline(hub_offline_alternative());
    CHECK(contains(offline, "config.json"));
    CHECK(contains(offline, "vramlens import <local folder>"));
    const auto msg = [&](int status, std::string_view code, std::string_view retry = {}, std::string_view file = {}, std::string_view detail = {}) {
        std::string m = hub_error_message(status, code, retry, "org/name", file, detail);
        CHECK(m.size() > offline.size());
        CHECK(m.substr(m.size() - offline.size()) == offline);
        return m;
    };
    CHECK(contains(msg(401, "GatedRepo"), "org/name is a gated model: it needs a Hugging Face access token"));
    CHECK(contains(msg(403, "GatedRepo"), "is a gated model"));
    // Unauthenticated, the Hub answers 401 for a missing repo and for a private one alike.
    CHECK(contains(msg(401, "RepoNotFound"), "was not found, or it is private or gated and needs a Hugging Face access token"));
    CHECK(contains(msg(401, ""), "needs a Hugging Face access token"));
    CHECK(contains(msg(404, "RepoNotFound"), "org/name was not found on the Hub"));
    CHECK(contains(msg(404, "EntryNotFound", {}, "config.json"), "org/name has no file config.json"));
    CHECK(contains(msg(404, "RevisionNotFound"), "has no such revision"));
    CHECK(contains(msg(403, ""), "lacks the permission"));
    CHECK(contains(msg(429, "", "17"), "rate-limiting requests (429): wait 17 s and try again"));
    CHECK(contains(msg(429, ""), "wait a minute"));
    CHECK(contains(msg(503, ""), "server error (503)"));
    CHECK(contains(msg(0, "", {}, "config.json", "Connection refused"), "could not reach the Hugging Face Hub to read config.json of org/name (Connection refused)"));
    CHECK(contains(msg(418, ""), "answered HTTP 418"));
}
