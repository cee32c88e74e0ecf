// What a person types to name a model on the Hugging Face Hub (issue 17), the URLs we request for it,
// and what we tell them when the Hub says no. Pure: text in, text out; the CLI (libcurl) and the page
// (fetch) do the requests and hand the status and headers back here for the message.
//
// Accepted forms (`model` field):
//   org/name                                   revision "main"
//   org/name@revision                          a branch, tag, commit or "refs/pr/1"
//   https://huggingface.co/org/name            also http://, without the scheme, hf.co, or the endpoint given
//   .../org/name/tree/<revision>               the repo's file list at a revision
//   .../org/name/blob/<revision>/<file>        one file's page: that file
//   .../org/name/resolve/<revision>/<file>     one file's download link: that file
// A revision in a URL is one path segment, percent-encoded when it holds "/" (refs%2Fpr%2F1), as the
// Hub writes it; a query or fragment (?download=true) is ignored.
//
// URLs are built as huggingface_hub's hf_hub_url does [hf-hub-client]: the revision is percent-encoded
// with no safe characters (refs/pr/1 -> refs%2Fpr%2F1), the file name keeping "/" between folders.
//
// Errors [hf-hub-client]: the Hub names the cause in the X-Error-Code header: GatedRepo (401/403: the
// repo's conditions must be accepted and a token sent), RepoNotFound, RevisionNotFound, EntryNotFound.
// An unauthenticated request for a repo that does not exist, or is private, gets 401 (not 404), so a
// 401 without a code is "not found, or private and needs a token"; with a token a missing repo is 404.
#pragma once
#include <string>
#include <string_view>

#include "diagnostics.h"

namespace vl {

inline constexpr std::string_view kHubDefaultEndpoint = "https://huggingface.co";
inline constexpr std::string_view kHubDefaultRevision = "main";

struct HubReference {
    std::string repo_id;                                  // "org/name"
    std::string revision = std::string(kHubDefaultRevision);  // a branch, tag, commit or refs/pr/N
    std::string file;                                     // "" or a path in the repo ("model-Q4_K_M.gguf")
    bool operator==(const HubReference&) const = default;
};

// Parses `text` (surrounding spaces ignored). URLs are recognised on huggingface.co, hf.co and, when
// it is not empty, `endpoint` (an HF_ENDPOINT such as "http://127.0.0.1:8080"). On failure one
// FieldError for field "model" saying which forms are expected.
Result<HubReference> parse_hub_reference(std::string_view text, std::string_view endpoint = {});

// Whether `text` has the shape of a repo id or Hub URL (not a path to a local file): org/name, with an
// optional @revision, or a URL on huggingface.co / hf.co / `endpoint`. Says nothing about validity.
bool looks_like_hub_reference(std::string_view text, std::string_view endpoint = {});

// Percent-encodes every byte but A-Z a-z 0-9 - . _ ~ (and "/" when keep_slash) [rfc3986 §2.3].
std::string hub_percent_encode(std::string_view s, bool keep_slash);

// {endpoint}/{repo}/resolve/{revision}/{file}; a trailing "/" of endpoint is dropped.
std::string hub_file_url(std::string_view endpoint, const HubReference& ref, std::string_view file);
// {endpoint}/api/models/{repo}/revision/{revision}
std::string hub_api_url(std::string_view endpoint, const HubReference& ref);

// The user-facing text for a failed Hub request, ending with the offline alternative.
// http_status 0: no answer (network failure; `detail` says why, e.g. "connection refused").
// x_error_code: the X-Error-Code header ("" when absent). retry_after: the Retry-After header of a 429.
// repo: the repo id; file: the file asked for ("" for the API).
std::string hub_error_message(int http_status, std::string_view x_error_code, std::string_view retry_after,
                              std::string_view repo, std::string_view file = {}, std::string_view detail = {});

// The last sentence of every message above: what to do without the network.
std::string_view hub_offline_alternative();

}  // namespace vl
