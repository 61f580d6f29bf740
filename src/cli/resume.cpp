#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

namespace {

struct ResumeOptions {
    std::string results;
    bool retry_failed = false;
    bool resend_unknown = false;
};

} // namespace

Action add_resume(CLI::App& app) {
    auto opts = std::make_shared<ResumeOptions>();
    auto* sub = app.add_subcommand("resume", "Continue a failed or interrupted campaign from its result log");
    sub->add_option("RESULTS", opts->results, "Result log (JSON Lines)")->required();
    sub->add_flag("--retry-failed", opts->retry_failed,
                  "Also retry recipients the service rejected permanently");
    sub->add_flag("--resend-unknown", opts->resend_unknown,
                  "Also resend recipients whose outcome is unknown (may deliver twice)");
    return [opts] { return not_built("resume"); };
}

} // namespace cli
