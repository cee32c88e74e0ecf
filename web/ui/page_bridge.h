// The page side of the app (browser only; no-ops natively, where tests fill app.inbox and read
// app.outbox themselves). page_begin_frame reads the page's environment once and takes the events
// JavaScript queued; page_end_frame hands the outbox to the page (shell/index.html, window.vramlens).
#pragma once
#include "ui/app.h"

namespace vl::ui {

void page_begin_frame(AppState& app);
void page_end_frame(AppState& app);

}  // namespace vl::ui
