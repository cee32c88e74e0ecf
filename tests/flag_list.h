// The engines' documented flag lists (tests/data/planner/*_flags.txt, each with its source in its
// header) and the flags a printed launch line uses, for the tests that check one against the other.
#pragma once
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace vl::test {

// Every non-comment line of tests/data/planner/<file>.
inline std::set<std::string> documented_flags(const std::string& file) {
    std::ifstream f(std::string(VRAMLENS_TEST_DATA) + "/planner/" + file);
    std::set<std::string> flags;
    for (std::string line; std::getline(f, line);)
        if (!line.empty() && line[0] != '#') flags.insert(line);
    return flags;
}

// The words of a command line that are flags: they start with '-' and are not negative numbers.
inline std::vector<std::string> command_flags(const std::string& line) {
    std::istringstream words(line);
    std::vector<std::string> flags;
    for (std::string w; words >> w;)
        if (w[0] == '-' && !(w.size() > 1 && std::isdigit(static_cast<unsigned char>(w[1])))) flags.push_back(w);
    return flags;
}

}  // namespace vl::test
