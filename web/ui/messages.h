// The core's messages in Chinese (issue 15). The core speaks English only (no language in core/); its
// errors, warnings and notes reach the 中文 page through a catalogue owned by the UI: each entry is an
// English template with "{}" where the core puts a variable part (a number, a field name, a model) and
// its Chinese, in which "{}" takes the variable parts in order and "{2}" names one by its place.
// The catalogue is web/ui/zh_messages.txt, a site file the page fetches with the Chinese font
// (kZhMessagesFile, web/main.cpp), so a visit in English downloads none of it.
// web/tests/messages_test.cpp fails when the core produces a message the catalogue does not translate.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vl::ui {

inline constexpr const char* kZhMessagesFile = "zh-messages.txt";

struct MessageTemplate {
    std::vector<std::string> literals;  // the English around the "{}" parts: one more than there are parts
    std::string zh;                     // the Chinese, with "{}" / "{N}" for the parts
    size_t literal_chars = 0;           // the English's fixed text: the most specific entry wins
};

// A name the core puts into lists ("model states (weights, gradients, optimizer) 12 GiB (80.0 %), ..."):
// replaced wherever it occurs in a variable part that is not itself a message of the catalogue.
struct MessagePhrase {
    std::string en, zh;
};

struct MessageCatalogue {
    std::vector<MessageTemplate> entries;
    std::vector<MessagePhrase> phrases;  // longest English first
    std::vector<MessagePhrase> labels;   // a component id (en) and its Chinese label
    std::vector<std::string> ui_strings; // the UI's own strings by S index ("$<index>" lines, built from ui/strings.h)
    std::vector<std::string> problems;  // lines the reader could not take (the catalogue's test requires none)
};

// The file's text: pairs of lines, English then Chinese; blank lines and lines starting with '#' are skipped.
// An English line starting with "= " is a phrase (MessagePhrase), one starting with "@" a component id
// (its Chinese label follows), one starting with "$" the index of a UI string (cmake/zh_ui_strings.py
// appends them to the site's copy), not a template.
MessageCatalogue parse_message_catalogue(std::string_view text);

// The Chinese of an English message, when an entry matches it whole; parts that are themselves
// messages of the catalogue are translated too. A message of clauses joined by "; " is translated clause
// by clause when each clause has its translation, else matched whole.
std::optional<std::string> translate_message(const MessageCatalogue& c, std::string_view english);

// What the page shows: the Chinese when `zh` and the catalogue has it, else the English as given.
std::string shown_message(const MessageCatalogue& c, bool zh, std::string_view english);

// A component's Chinese label by its id; nullptr when the catalogue has none.
const char* component_label_zh(const MessageCatalogue& c, std::string_view id);

}  // namespace vl::ui
