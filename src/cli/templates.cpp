// wacamp templates: list the account's message templates.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <memory>
#include <thread>

#include "campaign/campaign_file.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "queue/retry_policy.hpp"
#include "service/base_url.hpp"
#include "service/classify.hpp"
#include "service/curl_transport.hpp"
#include "service/requests.hpp"
#include "service/templates.hpp"
#include "util/env.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

struct TemplatesOptions {
    std::string campaign;
    std::string base_url;
    std::string status;
    bool json = false;
    bool allow_insecure_http = false;
};

constexpr int k_attempts = 3;

// The service settings from the campaign file, or from --base-url and $WACAMP_API_KEY.
util::Result<service::ServiceConfig> service_config(const TemplatesOptions& opts) {
    util::ProcessEnvironment env;
    if (!opts.campaign.empty()) {
        TRY_ASSIGN(const campaign::Campaign loaded, campaign::load_campaign(opts.campaign, env));
        return loaded.service;
    }
    service::ServiceConfig config;
    config.insecure_http = opts.allow_insecure_http ? service::InsecureHttp::allow : service::InsecureHttp::refuse;
    auto url = service::check_base_url(opts.base_url, config.insecure_http);
    if (!url && service::insecure_http(opts.base_url) && config.insecure_http == service::InsecureHttp::refuse &&
        service::check_base_url(opts.base_url, service::InsecureHttp::allow)) {
        return util::fail(
            "--base-url: plain http:// would send the API key unencrypted: use https://, or pass "
            "--allow-insecure-http if the network is trusted");
    }
    if (!url) {
        return util::fail("--base-url " + url.error().message);
    }
    config.base_url = std::move(*url);
    auto key = env.get("WACAMP_API_KEY");
    if (!key || key->empty()) {
        return util::fail("--base-url needs the API key in the environment variable WACAMP_API_KEY");
    }
    config.api_key = *key;
    return config;
}

void print_table(const std::vector<service::TemplateInfo>& rows, const util::Redactor& redactor) {
    std::vector<std::array<std::string, 5>> cells;
    cells.push_back({"NAME", "CATEGORY", "LANGUAGE", "STATUS", "UPDATED"});
    for (const auto& t : rows) {
        // The service's text: nothing in it may drive the terminal.
        std::array<std::string, 5> row{t.name, t.category, t.language, t.status, t.updated_at};
        for (auto& cell : row) {
            cell = util::printable(cell, util::LineBreaks::space);
        }
        cells.push_back(std::move(row));
    }
    std::array<size_t, 5> width{};
    for (const auto& row : cells) {
        for (size_t i = 0; i < row.size(); ++i) {
            width[i] = std::max(width[i], row[i].size());
        }
    }
    std::string out;
    for (const auto& row : cells) {
        for (size_t i = 0; i < row.size(); ++i) {
            out += i + 1 < row.size() ? fmt::format("{:<{}}  ", row[i], width[i]) : row[i] + "\n";
        }
    }
    print_out(redactor, out);
}

int list_templates(const TemplatesOptions& opts) {
    Output out(LogFormat::text);
    auto config = service_config(opts);
    if (!config) {
        out.error(config.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    out.add_secret(config->api_key);
    out.add_secret(config->access_token);
    for (const auto& [name, value] : config->headers) {
        out.add_secret(value);  // extra headers may carry tokens too
    }
    if (service::insecure_http(config->base_url)) {
        out.warning(service::insecure_http_warning(config->base_url));
    }

    service::CurlTransport transport(
        {.ca_file = config->ca_file, .max_connections = 2, .max_host_connections = 0, .http = config->http});
    queue::RetryPolicy retry(campaign::Retry{});
    service::Outcome outcome;
    service::Completion completion;
    int attempts = 0;  // made, for the message: a refusal is not retried
    const auto request = service::list_templates_request(*config);
    for (int attempt = 1;; ++attempt) {
        completion = service::perform(transport, request);
        outcome = service::classify(completion, std::chrono::system_clock::now());
        attempts = attempt;
        if (!outcome.retryable() || attempt >= k_attempts) {
            break;
        }
        auto wait = outcome.retry_after.value_or(retry.backoff(attempt));
        std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(10'000)));
    }

    const std::string where = service::redacted_url(config->base_url);
    if (outcome.cause == service::Cause::auth) {
        out.error(
            fmt::format("the service at {} refused the credentials ({}); check the API key", where, outcome.error),
            k_exit_stopped);
        return k_exit_stopped;
    }
    if (outcome.cause == service::Cause::policy_block) {
        out.error(fmt::format("the service at {} says the account is temporarily blocked for a policy violation "
                              "({}); the credentials are fine: wait for the block to end",
                              where, outcome.error),
                  k_exit_stopped);
        return k_exit_stopped;
    }
    if (outcome.cause == service::Cause::endpoint) {
        out.error(service::wrong_endpoint(request, outcome), k_exit_stopped);
        return k_exit_stopped;
    }
    if (outcome.cause == service::Cause::tls) {
        out.error(fmt::format("{}: {}; trust its CA with service.ca_file, or fix the server's certificate", where,
                              outcome.error),
                  k_exit_stopped);
        return k_exit_stopped;
    }
    if (!outcome.sent()) {
        out.error(fmt::format("could not list templates from {} ({} attempt{}): {}", where, attempts,
                              attempts == 1 ? "" : "s", outcome.error),
                  k_exit_failures);
        return k_exit_failures;
    }
    const std::string& body = std::get<service::HttpResponse>(completion.result).body;
    if (opts.json) {
        auto text = service::templates_json(body);
        if (!text) {
            out.error(text.error().message, k_exit_failures);
            return k_exit_failures;
        }
        print_out(out.redactor(), *text + "\n");
        return k_exit_done;
    }
    auto rows = service::parse_templates(body);
    if (!rows) {
        out.error(rows.error().message, k_exit_failures);
        return k_exit_failures;
    }
    if (!opts.status.empty()) {
        std::erase_if(*rows, [&](const auto& t) { return t.status != opts.status; });
    }
    print_table(*rows, out.redactor());
    return k_exit_done;
}

}  // namespace

Action add_templates(CLI::App& app) {
    auto opts = std::make_shared<TemplatesOptions>();
    auto* sub = app.add_subcommand("templates", "List the account's message templates");
    auto* campaign = sub->add_option("--campaign", opts->campaign, "Take the service settings from this campaign file");
    auto* base_url =
        sub->add_option("--base-url", opts->base_url, "The service's base URL (API key from $WACAMP_API_KEY)");
    campaign->excludes(base_url);
    sub->add_option("--status", opts->status, "Only templates with this status (e.g. APPROVED)");
    sub->add_flag("--json", opts->json, "Print the service's records as JSON");
    sub->add_flag("--allow-insecure-http", opts->allow_insecure_http,
                  "Allow a plain http:// --base-url to a host other than loopback (the API key travels unencrypted)");
    sub->footer("One of --campaign or --base-url is required.");
    return [opts]() -> int {
        if (opts->campaign.empty() && opts->base_url.empty()) {
            print_error(util::Redactor{}, "templates needs --campaign FILE or --base-url URL");
            return k_exit_bad_input;
        }
        return list_templates(*opts);
    };
}

}  // namespace cli
