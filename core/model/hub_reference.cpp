// Hub references, URLs and error messages (hub_reference.h).
#include "model/hub_reference.h"

#include <cctype>
#include <optional>
#include <vector>

namespace vl {

namespace {

constexpr std::string_view kExpected =
    "expected a Hugging Face repo id \"org/name\" or \"org/name@revision\", or a huggingface.co URL "
    "(https://huggingface.co/org/name, .../tree/<revision>, .../blob/<revision>/<file> or .../resolve/<revision>/<file>)";

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string quoted(std::string_view s) {
    constexpr size_t kShown = 120;
    std::string out = "\"";
    out += s.size() > kShown ? std::string(s.substr(0, kShown)) + "..." : std::string(s);
    return out + "\"";
}

Result<HubReference> fail(std::string message) { return Result<HubReference>::failure({{"model", std::move(message)}}); }

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size() || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0) return std::nullopt;
        out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
        i += 2;
    }
    return out;
}

// A repo id as the Hub allows it: namespace/name, each of letters, digits, "-", "_", ".", not starting
// or ending with "-" or ".", no "--" or "..", at most 96 characters in all.
std::optional<std::string> repo_id_problem(std::string_view id) {
    const std::vector<std::string_view> parts = split(id, '/');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty())
        return "a repo id is two names joined by \"/\" (org/name); got " + quoted(id);
    if (id.size() > 96) return "a repo id is at most 96 characters; got " + std::to_string(id.size());
    for (std::string_view part : parts) {
        for (char c : part)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
                return "a repo id holds only letters, digits, \"-\", \"_\" and \".\"; got " + quoted(id);
        if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
            return "a name in a repo id cannot start or end with \"-\" or \".\"; got " + quoted(id);
    }
    if (id.find("--") != std::string_view::npos || id.find("..") != std::string_view::npos)
        return "a repo id cannot contain \"--\" or \"..\"; got " + quoted(id);
    return std::nullopt;
}

bool has_control_or_space(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
    return false;
}

// A revision: a branch, tag, commit or refs/pr/N. Git refs hold no spaces, control characters or "..".
std::optional<std::string> revision_problem(std::string_view rev) {
    if (rev.empty()) return std::string("the revision after \"@\" is empty: write org/name@<branch, tag or commit>, or leave out \"@\"");
    if (has_control_or_space(rev) || rev.find("..") != std::string_view::npos || rev.front() == '/' || rev.back() == '/')
        return "the revision " + quoted(rev) + " is not a branch, tag or commit name (no spaces, \"..\" or leading/trailing \"/\")";
    return std::nullopt;
}

// A file in the repo: a relative path without empty, "." or ".." parts.
std::optional<std::string> file_problem(std::string_view file) {
    bool control = false;
    for (char c : file) control = control || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (control)
        return "the file name " + quoted(file) + " holds control characters";
    for (std::string_view part : split(file, '/'))
        if (part.empty() || part == "." || part == "..")
            return "the file path " + quoted(file) + " must be a path inside the repo (no empty, \".\" or \"..\" parts)";
    return std::nullopt;
}

// The host part of a URL-ish text (scheme dropped), and the rest of the path, or nullopt when `text`
// does not start with one of the Hub hosts.
std::optional<std::string_view> strip_hub_host(std::string_view text, std::string_view endpoint) {
    std::vector<std::string> prefixes;
    for (std::string_view scheme : {"https://", "http://", ""})
        for (std::string_view host : {"huggingface.co/", "www.huggingface.co/", "hf.co/"}) prefixes.push_back(std::string(scheme) + std::string(host));
    std::string ep(trim(endpoint));
    while (!ep.empty() && ep.back() == '/') ep.pop_back();
    if (!ep.empty()) prefixes.push_back(ep + "/");
    for (const std::string& p : prefixes)
        if (text.size() >= p.size()) {
            bool same = true;
            const size_t scheme_end = p.find("://") == std::string::npos ? 0 : p.find("://") + 3;
            const size_t host_end = p.find('/', scheme_end);
            for (size_t i = 0; i < p.size() && same; ++i) {
                const bool in_host = i < host_end;  // scheme and host compare without case
                same = in_host ? std::tolower(static_cast<unsigned char>(text[i])) == std::tolower(static_cast<unsigned char>(p[i])) : text[i] == p[i];
            }
            if (same) return text.substr(p.size());
        }
    return std::nullopt;
}

bool has_scheme(std::string_view s) {
    const size_t colon = s.find("://");
    if (colon == std::string_view::npos || colon == 0) return false;
    for (size_t i = 0; i < colon; ++i)
        if (!std::isalpha(static_cast<unsigned char>(s[i]))) return false;
    return true;
}

Result<HubReference> parse_url_path(std::string_view path, std::string_view original) {
    if (const size_t q = path.find_first_of("?#"); q != std::string_view::npos) path = path.substr(0, q);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    std::vector<std::string_view> seg = split(path, '/');
    if (!seg.empty() && (seg[0] == "datasets" || seg[0] == "spaces"))
        return fail(quoted(original) + " is a " + std::string(seg[0] == "datasets" ? "dataset" : "Space") +
                    ", not a model: give a model's URL (https://huggingface.co/org/name) or its id org/name");
    if (!seg.empty() && seg[0] == "models") seg.erase(seg.begin());
    if (seg.size() < 2) return fail(std::string(kExpected) + "; got " + quoted(original));
    HubReference ref;
    ref.repo_id = std::string(seg[0]) + "/" + std::string(seg[1]);
    if (std::optional<std::string> p = repo_id_problem(ref.repo_id)) return fail(*p);
    if (seg.size() == 2) return Result<HubReference>::success(std::move(ref));
    const std::string_view kind = seg[2];
    const bool wants_file = kind == "blob" || kind == "resolve";
    if (!(kind == "tree" || wants_file) || seg.size() < 4)
        return fail(std::string(kExpected) + "; got " + quoted(original) + " (after org/name, the URL must go on with /tree/<revision>, /blob/<revision>/<file> or /resolve/<revision>/<file>)");
    std::optional<std::string> rev = percent_decode(seg[3]);
    if (!rev) return fail("the revision " + quoted(seg[3]) + " in the URL has a broken %-escape");
    if (std::optional<std::string> p = revision_problem(*rev)) return fail(*p);
    ref.revision = *rev;
    if (kind == "tree") return Result<HubReference>::success(std::move(ref));  // a folder in the tree is the repo
    if (seg.size() < 5) return fail(quoted(original) + " names no file after the revision: write .../" + std::string(kind) + "/<revision>/<file>");
    std::string file;
    for (size_t i = 4; i < seg.size(); ++i) {
        std::optional<std::string> part = percent_decode(seg[i]);
        if (!part) return fail("the file name " + quoted(seg[i]) + " in the URL has a broken %-escape");
        file += (i > 4 ? "/" : "") + *part;
    }
    if (std::optional<std::string> p = file_problem(file)) return fail(*p);
    ref.file = std::move(file);
    return Result<HubReference>::success(std::move(ref));
}

}  // namespace

Result<HubReference> parse_hub_reference(std::string_view text, std::string_view endpoint) {
    const std::string_view original = trim(text);
    if (original.empty()) return fail(std::string(kExpected) + "; got nothing");
    if (std::optional<std::string_view> path = strip_hub_host(original, endpoint)) return parse_url_path(*path, original);
    if (has_scheme(original))
        return fail(quoted(original) + " is not a huggingface.co address: " + std::string(kExpected) +
                    (endpoint.empty() ? std::string() : " (or an address on " + std::string(endpoint) + ")"));
    HubReference ref;
    std::string_view id = original;
    if (const size_t at = id.find('@'); at != std::string_view::npos) {
        const std::string_view rev = id.substr(at + 1);
        if (std::optional<std::string> p = revision_problem(rev)) return fail(*p);
        ref.revision = std::string(rev);
        id = id.substr(0, at);
    }
    if (std::optional<std::string> p = repo_id_problem(id)) return fail(std::string(kExpected) + "; " + *p);
    ref.repo_id = std::string(id);
    return Result<HubReference>::success(std::move(ref));
}

bool looks_like_hub_reference(std::string_view text, std::string_view endpoint) {
    const std::string_view t = trim(text);
    if (strip_hub_host(t, endpoint)) return true;
    if (has_scheme(t)) return false;
    const std::string_view id = t.substr(0, t.find('@'));
    const std::vector<std::string_view> parts = split(id, '/');
    return parts.size() == 2 && !parts[0].empty() && !parts[1].empty() && parts[0] != "." && parts[0] != ".." && !has_control_or_space(id);
}

std::string hub_percent_encode(std::string_view s, bool keep_slash) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

namespace {
std::string base(std::string_view endpoint) {
    std::string e(endpoint.empty() ? kHubDefaultEndpoint : endpoint);
    while (!e.empty() && e.back() == '/') e.pop_back();
    return e;
}
}  // namespace

std::string hub_file_url(std::string_view endpoint, const HubReference& ref, std::string_view file) {
    return base(endpoint) + "/" + hub_percent_encode(ref.repo_id, true) + "/resolve/" + hub_percent_encode(ref.revision, false) + "/" +
           hub_percent_encode(file, true);
}

std::string hub_api_url(std::string_view endpoint, const HubReference& ref) {
    return base(endpoint) + "/api/models/" + hub_percent_encode(ref.repo_id, true) + "/revision/" + hub_percent_encode(ref.revision, false);
}

std::string_view hub_offline_alternative() {
    return "Without the network: download the model's config.json (and, for exact sizes, its *.safetensors or .gguf files) "
           "from its page and paste or drop config.json into the page, or run `vramlens import <local folder>`.";
}

std::string hub_error_message(int http_status, std::string_view x_error_code, std::string_view retry_after, std::string_view repo,
                              std::string_view file, std::string_view detail) {
    const std::string r(repo);
    const std::string what = file.empty() ? r : std::string(file) + " of " + r;
    std::string msg;
    if (http_status == 0) {
        msg = "could not reach the Hugging Face Hub to read " + what + (detail.empty() ? std::string() : " (" + std::string(detail) + ")") +
              ": check the network connection (and HF_ENDPOINT, if set).";
    } else if (x_error_code == "GatedRepo") {
        msg = r + " is a gated model: it needs a Hugging Face access token from an account that has accepted its conditions on "
                  "its page (create one at https://huggingface.co/settings/tokens; the CLI reads HF_TOKEN or the token file of "
                  "`hf auth login`, the page has a token field).";
    } else if (x_error_code == "RevisionNotFound") {
        msg = r + " has no such revision: check the branch, tag or commit after \"@\" (or in the URL).";
    } else if (x_error_code == "EntryNotFound" || (http_status == 404 && !file.empty() && x_error_code != "RepoNotFound")) {
        msg = r + " has no file " + (file.empty() ? std::string("by that name") : std::string(file)) + " at this revision: check the file name.";
    } else if (http_status == 401) {
        msg = r + " was not found, or it is private or gated and needs a Hugging Face access token (the Hub answers 401 for "
                  "both when no token is sent): check the repo id; for a private or gated model set HF_TOKEN (CLI) or fill the token field (page).";
    } else if (x_error_code == "RepoNotFound" || http_status == 404) {
        msg = r + " was not found on the Hub (or the token given has no access to it): check the repo id.";
    } else if (http_status == 403) {
        msg = "the Hub refused access to " + what + " (403): the token given lacks the permission to read it (a fine-grained token needs read access to this repo).";
    } else if (http_status == 429) {
        bool digits = !retry_after.empty();
        for (char c : retry_after) digits = digits && std::isdigit(static_cast<unsigned char>(c));
        const std::string wait = digits ? "wait " + std::string(retry_after) + " s"
                                 : retry_after.empty() ? std::string("wait a minute")
                                                       : "wait until " + std::string(retry_after);
        msg = "the Hugging Face Hub is rate-limiting requests (429): " + wait + " and try again (requests with a token get a higher limit).";
    } else if (http_status >= 500 && http_status <= 599) {
        msg = "the Hugging Face Hub had a server error (" + std::to_string(http_status) + ") reading " + what + ": try again later.";
    } else {
        msg = "the Hugging Face Hub answered HTTP " + std::to_string(http_status) + " reading " + what + ".";
    }
    return msg + " " + std::string(hub_offline_alternative());
}

}  // namespace vl
