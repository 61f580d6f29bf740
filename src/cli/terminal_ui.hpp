#pragma once
// The person's side of a run: the confirmation question, notices, and progress — a live line
// on a terminal, a plain line every few seconds otherwise, a progress object with
// --log-format json — all printed through one Output.

#include <chrono>
#include <string>

#include "cli/output.hpp"
#include "runner/ui.hpp"

namespace cli {

enum class ProgressMode { automatic, off };
enum class AssumeYes { no, yes };

class TerminalUi : public runner::RunUi {
public:
    TerminalUi(Output& out, ProgressMode progress, AssumeYes yes);
    ~TerminalUi() override;

    bool wants_confirmation() const override;
    bool confirm(const runner::Preview& preview) override;
    void notice(std::string_view text) override;
    void warning(std::string_view text) override;
    void progress(const queue::Progress& progress, const runner::RunFigures& figures) override;

    // Clears the live line, if one is showing, so that other output starts on a clean line.
    void clear_line() override;

private:
    Output& m_out;
    bool m_enabled;
    bool m_ask;  // text, stdin and stderr are terminals, and --yes was not given
    std::chrono::steady_clock::time_point m_started;
    std::chrono::steady_clock::time_point m_next_plain;  // when the next plain line (or object) is due
};

// Whether `run` would ask before sending: stdin and stderr are terminals and `yes` is no.
bool would_ask(AssumeYes yes);

}  // namespace cli
