#include "cli/metrics_options.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string_view>

#include "cli/exit_code.hpp"
#include "observe/text_file.hpp"
#include "service/base_url.hpp"
#include "service/curl_transport.hpp"
#include "util/env.hpp"

namespace cli {

namespace {

// Where --metrics-push is read from when it is not given.
constexpr std::string_view k_push_variable = "WACAMP_METRICS_PUSH";

}  // namespace

void add_metrics_options(CLI::App& sub, MetricsOptions& options, CLI::Option* dry_run) {
    auto* file = sub.add_option("--metrics-file", options.file,
                                "Write Prometheus metrics to this .prom file every 10 s and at the end, replaced "
                                "atomically, for node_exporter's textfile collector (docs/metrics.md)");
    // Not CLI11's envname: a variable set for real runs (an EnvironmentFile) would then count
    // as the option given, and refuse every --dry-run.
    auto* push = sub.add_option("--metrics-push", options.push,
                                "Push-add Prometheus metrics to this Pushgateway (http[s]://[USER:PASSWORD@]HOST:PORT) "
                                "every 10 s and at the end, as job wacamp and the campaign; a failed push only warns; "
                                "default: $" +
                                    std::string(k_push_variable) + " (keeps a password off the command line)");
    if (dry_run != nullptr) {
        file->excludes(dry_run);
        push->excludes(dry_run);
    }
}

std::optional<observe::ExportTargets> check_metrics_or_report(const MetricsOptions& options, Output& out) {
    observe::ExportTargets targets;
    const std::string push_url =
        options.push.empty() ? util::ProcessEnvironment().get(std::string(k_push_variable)).value_or("") : options.push;
    if (!push_url.empty()) {
        auto push = observe::parse_push_url(push_url);
        if (!push) {
            out.error(push.error().message, k_exit_bad_input);
            return std::nullopt;
        }
        // Belt and braces: nothing prints the credentials, and should anything echo them
        // (a server's answer), they are masked, as typed (percent-encoded) or not.
        out.add_secret(push->password);
        if (!push->password.empty()) {
            // Its Basic authentication header: base64 of the pair, masked whole.
            out.add_secret(push->user + ":" + push->password);
        }
        if (!push->password.empty() && service::insecure_http(push->url)) {
            out.warning("--metrics-push: the Pushgateway's password travels unencrypted over plain http:// to " +
                        push->url);
        }
        targets.push = std::move(*push);
    }
    if (!options.file.empty()) {
        if (auto checked = observe::check_metrics_path(options.file); !checked) {
            out.error(checked.error().message, k_exit_bad_input);
            return std::nullopt;
        }
        targets.file = options.file;
    }
    return targets;
}

struct RunExport::Parts {
    std::optional<service::CurlTransport> transport;
    std::optional<observe::MetricsExporter> exporter;
};

RunExport::RunExport(const std::string& campaign, const observe::ExportTargets& targets, const util::Clock& clock,
                     runner::RunUi& ui)
    : m_parts(std::make_unique<Parts>()) {
    if (targets.file.empty() && !targets.push) {
        return;
    }
    if (targets.push) {
        m_parts->transport.emplace(service::CurlOptions{.ca_file = {}, .max_connections = 1});
    }
    m_parts->exporter.emplace(
        campaign, targets,
        observe::ExportParts{.clock = clock,
                             .push_transport = m_parts->transport ? &*m_parts->transport : nullptr,
                             .warn = [&ui](const std::string& problem) { ui.warning(problem); }});
}

RunExport::~RunExport() = default;

runner::RunWatch* RunExport::watch() {
    return m_parts->exporter ? &*m_parts->exporter : nullptr;
}

void RunExport::finish(int exit_code, int stops) {
    if (!m_parts->exporter) {
        return;
    }
    m_parts->exporter->finish(exit_code == k_exit_done || exit_code == k_exit_failures ? observe::RunSucceeded::yes
                                                                                       : observe::RunSucceeded::no,
                              stops >= 2 ? observe::FinalPush::skip : observe::FinalPush::wait);
}

}  // namespace cli
