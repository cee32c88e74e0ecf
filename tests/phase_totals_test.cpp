// phase_totals: the one per-phase sum behind Estimate::phase_bytes, the fragmentation reserve, the
// solver's activation floor and the UI's breakdown. Totals below are added up by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "estimate.h"

using namespace vl;

namespace {

Component part(const char* id, Category cat, double bytes, unsigned phases, bool host = false) {
    Component c;
    c.id = id;
    c.category = cat;
    c.bytes = bytes;
    c.phases = phases;
    c.host = host;
    return c;
}

const unsigned kFwd = phase_bit(Phase::Forward), kBwd = phase_bit(Phase::Backward), kStep = phase_bit(Phase::Step);

std::vector<Component> step_of_training() {
    return {
        part("weights", Category::Weights, 100, kAllPhases),
        part("act", Category::Activations, 40, kFwd | kBwd),
        part("grads", Category::Gradients, 30, kBwd | kStep),
        part("optimizer", Category::Optimizer, 500, kAllPhases, /*host=*/true),
        part("reserve", Category::Overhead, 7, kBwd),
    };
}

}  // namespace

TEST_CASE("phase_totals: each component counts in the phases it names, host bytes apart") {
    const PhaseTotals t = phase_totals(step_of_training());
    CHECK(t.gpu[0] == 100);              // load: weights
    CHECK(t.gpu[1] == 140);              // forward: 100 + 40
    CHECK(t.gpu[2] == 177);              // backward: 100 + 40 + 30 + 7
    CHECK(t.gpu[3] == 130);              // step: 100 + 30
    CHECK(t.peak == Phase::Backward);
    CHECK(t.peak_bytes() == 177);
    CHECK(t.host == 500);                // the offloaded optimizer is on no GPU phase
}

TEST_CASE("phase_totals: a category mask sums only those categories") {
    const std::vector<Component> c = step_of_training();
    const PhaseTotals allocated = phase_totals(c, kAllCategories & ~category_bit(Category::Overhead));
    CHECK(allocated.peak == Phase::Backward);
    CHECK(allocated.peak_bytes() == 170);  // 177 without the 7-byte reserve
    const PhaseTotals act = phase_totals(c, category_bit(Category::Activations) | category_bit(Category::Logits));
    CHECK(act.gpu[1] == 40);
    CHECK(act.gpu[2] == 40);
    CHECK(act.peak == Phase::Forward);     // a tie goes to the earlier phase
    CHECK(act.host == 0);
    const PhaseTotals host_only = phase_totals(c, category_bit(Category::Optimizer));
    CHECK(host_only.host == 500);
    CHECK(host_only.peak_bytes() == 0);
}

TEST_CASE("phase_totals: a sub-range, and nothing at all") {
    const std::vector<Component> c = step_of_training();
    const PhaseTotals first_two = phase_totals(std::span<const Component>(c).first(2));
    CHECK(first_two.gpu[1] == 140);
    CHECK(first_two.gpu[2] == 140);
    CHECK(first_two.peak == Phase::Forward);
    const PhaseTotals none = phase_totals({});
    CHECK(none.peak == Phase::Load);
    CHECK(none.peak_bytes() == 0);
    CHECK(none.host == 0);
}

TEST_CASE("an estimate's phase bytes, peak and host bytes are phase_totals of its components") {
    Scenario s;
    s.mode = Mode::Train;
    s.parallel.zero = 2;
    s.parallel.dp = 8;
    s.parallel.offload_optimizer = true;
    s.gpu_count = 8;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const PhaseTotals t = phase_totals(e.components);
    CHECK(e.phase_bytes == t.gpu);
    CHECK(e.peak_phase == t.peak);
    CHECK(e.total_bytes == t.peak_bytes());
    CHECK(e.host_bytes == t.host);
    CHECK(e.host_bytes > 0);  // the optimizer states went to the host
}
