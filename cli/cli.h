// vramlens command-line tool: parses arguments, reads files, and prints what the core computes.
// No formulas here. run() is main() without the process: output goes to strings.
#pragma once
#include <string>
#include <vector>

namespace vl::cli {

// Exit statuses.
inline constexpr int kOk = 0;
inline constexpr int kBadInput = 1;  // the scenario, config or file is invalid (the message names the field)
inline constexpr int kUsage = 2;     // unknown command or flag, missing argument
inline constexpr int kNoFit = 3;     // --fail-if-no-fit and the scenario does not fit

// args excludes the program name. Never throws and never exits: every outcome is a status and text.
// Reads standard input only for a file argument "-".
int run(const std::vector<std::string>& args, std::string& out, std::string& err);

}  // namespace vl::cli
