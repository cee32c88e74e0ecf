// The message catalogue (messages.h): reading it and matching the core's English against its templates.
#include "ui/messages.h"

#include <algorithm>
#include <cstdlib>

namespace vl::ui {

namespace {

// Matches msg[pos..] against literals[k..], each "{}" between them taking at least one character;
// the parts go to caps. Every place a literal occurs is tried, so "{} of {}" splits "a of b of c" somehow.
bool match_from(std::string_view msg, size_t pos, const std::vector<std::string>& lit, size_t k,
                std::vector<std::string_view>& caps) {
    if (k == lit.size()) return pos == msg.size();
    const std::string& l = lit[k];
    if (k + 1 == lit.size()) {  // the last literal ends the message
        if (msg.size() < pos + 1 + l.size() || msg.compare(msg.size() - l.size(), l.size(), l) != 0) return false;
        caps.push_back(msg.substr(pos, msg.size() - l.size() - pos));
        return true;
    }
    for (size_t at = msg.find(l, pos + 1); at != std::string_view::npos; at = msg.find(l, at + 1)) {
        caps.push_back(msg.substr(pos, at - pos));
        if (match_from(msg, at + l.size(), lit, k + 1, caps)) return true;
        caps.pop_back();
    }
    return false;
}

// A variable part that is no message: the catalogue's phrases in it replaced, the rest kept.
std::string with_phrases(const MessageCatalogue& c, std::string_view part) {
    std::string out;
    for (size_t i = 0; i < part.size();) {
        const MessagePhrase* hit = nullptr;
        for (const MessagePhrase& p : c.phrases)
            if (part.compare(i, p.en.size(), p.en) == 0) {
                hit = &p;
                break;
            }
        out += hit ? hit->zh : std::string(1, part[i]);
        i += hit ? hit->en.size() : 1;
    }
    return out;
}

std::optional<std::string> translate(const MessageCatalogue& c, std::string_view msg, int depth);

// A message made of clauses joined by "; " (the planners' rows, several errors together): split where each piece
// has a translation (a piece may hold "; " itself: "must be at least 2; got 1"), joined by "；"; nothing when no
// split does (then the message is matched whole).
std::optional<std::string> clauses(const MessageCatalogue& c, std::string_view msg, int depth) {
    for (size_t end = msg.find("; "); end != std::string_view::npos; end = msg.find("; ", end + 1)) {
        const std::optional<std::string> head = translate(c, msg.substr(0, end), depth);
        if (!head) continue;
        const std::string_view rest = msg.substr(end + 2);
        std::optional<std::string> tail = translate(c, rest, depth);
        if (tail) return *head + "；" + *tail;
    }
    return std::nullopt;
}

std::optional<std::string> translate(const MessageCatalogue& c, std::string_view msg, int depth) {
    // Clauses first: a template ending in "{}" would take "a; b" whole into its last part.
    if (std::optional<std::string> parts = clauses(c, msg, depth)) return parts;
    const MessageTemplate* best = nullptr;
    std::vector<std::string_view> caps, best_caps;
    for (const MessageTemplate& t : c.entries) {
        if (best && t.literal_chars <= best->literal_chars) continue;
        const std::string& first = t.literals.front();
        if (msg.compare(0, first.size(), first) != 0) continue;
        caps.clear();
        if (t.literals.size() == 1 ? msg == first : match_from(msg, first.size(), t.literals, 1, caps)) {
            best = &t;
            best_caps = caps;
        }
    }
    if (!best) return std::nullopt;
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < best->zh.size(); ++i) {
        const size_t close = best->zh[i] == '{' ? best->zh.find('}', i) : std::string::npos;
        if (close == std::string::npos || close > i + 2) {
            out += best->zh[i];
            continue;
        }
        const size_t n = close == i + 1 ? next++ : static_cast<size_t>(best->zh[i + 1] - '1');
        if (n < best_caps.size()) {
            const std::optional<std::string> inner = depth < 2 ? translate(c, best_caps[n], depth + 1) : std::nullopt;
            out += inner ? *inner : with_phrases(c, best_caps[n]);
        }
        i = close;
    }
    return out;
}

size_t placeholders(std::string_view s) {
    size_t n = 0;
    for (size_t at = s.find('{'); at != std::string_view::npos; at = s.find('{', at + 1))
        if (at + 1 < s.size() && (s[at + 1] == '}' || (at + 2 < s.size() && s[at + 2] == '}'))) ++n;
    return n;
}

}  // namespace

MessageCatalogue parse_message_catalogue(std::string_view text) {
    MessageCatalogue c;
    std::string en;
    bool have_en = false;
    int line_no = 0;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line[0] == '#') {
            if (have_en) c.problems.push_back("line " + std::to_string(line_no - 1) + ": English with no Chinese line after it");
            have_en = false;
            continue;
        }
        if (!have_en) {
            en = line;
            have_en = true;
            continue;
        }
        have_en = false;
        if (en[0] == '$') {
            const size_t i = static_cast<size_t>(std::strtoul(en.c_str() + 1, nullptr, 10));
            if (i < 4096) {
                if (c.ui_strings.size() <= i) c.ui_strings.resize(i + 1);
                c.ui_strings[i] = line;
            }
            continue;
        }
        if (en.rfind("= ", 0) == 0 || en[0] == '@') {
            (en[0] == '@' ? c.labels : c.phrases).push_back({en.substr(en[0] == '@' ? 1 : 2), std::string(line)});
            continue;
        }
        MessageTemplate t;
        t.zh = line;
        for (size_t at = 0;;) {
            const size_t p = en.find("{}", at);
            t.literals.push_back(en.substr(at, p == std::string::npos ? std::string::npos : p - at));
            t.literal_chars += t.literals.back().size();
            if (p == std::string::npos) break;
            at = p + 2;
        }
        if (placeholders(t.zh) > t.literals.size() - 1 || t.literal_chars == 0)
            c.problems.push_back("line " + std::to_string(line_no) + ": the Chinese has more {} parts than the English, or the English is only parts");
        else
            c.entries.push_back(std::move(t));
    }
    if (have_en) c.problems.push_back("the last English line has no Chinese line after it");
    std::stable_sort(c.phrases.begin(), c.phrases.end(),
                     [](const MessagePhrase& a, const MessagePhrase& b) { return a.en.size() > b.en.size(); });
    return c;
}

std::optional<std::string> translate_message(const MessageCatalogue& c, std::string_view english) {
    return translate(c, english, 0);
}

std::string shown_message(const MessageCatalogue& c, bool zh, std::string_view english) {
    if (zh)
        if (std::optional<std::string> t = translate(c, english, 0)) return *t;
    return std::string(english);
}

}  // namespace vl::ui

namespace vl::ui {

const char* component_label_zh(const MessageCatalogue& c, std::string_view id) {
    for (const MessagePhrase& l : c.labels)
        if (l.en == id) return l.zh.c_str();
    return nullptr;
}

}  // namespace vl::ui
