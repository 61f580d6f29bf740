// wacamp templates: list the account's message templates.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>

#include "campaign/campaign_file.hpp"
#include "campaign/template_text.hpp"
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
#include "util/redact.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

struct TemplatesOptions {
    std::string campaign;
    std::string base_url;
    std::string status;
    bool json = false;
    bool allow_insecure_http = false;
    std::string show;      // --show NAME: one template as a phone shows it, and its campaign message
    std::string language;  // --language L: which of a name's languages
};

constexpr int k_attempts = 3;

// The service settings from the campaign file, or from --base-url (else $WACAMP_BASE_URL) and
// $WACAMP_API_KEY.
util::Result<service::ServiceConfig> service_config(const TemplatesOptions& opts) {
    util::ProcessEnvironment env;
    if (!opts.campaign.empty()) {
        TRY_ASSIGN(const campaign::Campaign loaded, campaign::load_campaign(opts.campaign, env));
        return loaded.service;
    }
    const bool given = !opts.base_url.empty();
    const std::string base_url = given ? opts.base_url : env.get("WACAMP_BASE_URL").value_or("");
    const std::string source = given ? "--base-url" : "WACAMP_BASE_URL";
    if (base_url.empty()) {
        return util::fail(
            "templates needs --campaign FILE, --base-url URL, or the environment variable WACAMP_BASE_URL");
    }
    service::ServiceConfig config;
    config.insecure_http = opts.allow_insecure_http ? service::InsecureHttp::allow : service::InsecureHttp::refuse;
    auto url = service::check_base_url(base_url, config.insecure_http);
    if (!url && service::insecure_http(base_url) && config.insecure_http == service::InsecureHttp::refuse &&
        service::check_base_url(base_url, service::InsecureHttp::allow)) {
        return util::fail(source +
                          ": plain http:// would send the API key unencrypted: use https://, or pass "
                          "--allow-insecure-http if the network is trusted");
    }
    if (!url) {
        return util::fail(source + " " + url.error().message);
    }
    config.base_url = std::move(*url);
    auto key = env.get("WACAMP_API_KEY");
    if (!key || key->empty()) {
        return util::fail(source + " needs the API key in the environment variable WACAMP_API_KEY");
    }
    if (const auto short_key = util::credential_too_short(*key); !short_key.empty()) {
        return util::fail("WACAMP_API_KEY " + short_key);
    }
    config.api_key = *key;
    return config;
}

// The table's cells of `t`: the service's text, made printable.
std::array<std::string, 5> cells_of(const service::TemplateInfo& t) {
    std::array<std::string, 5> row{t.name, t.category, t.language, t.status, t.updated_at};
    for (auto& cell : row) {
        // The service's text: nothing in it may drive the terminal.
        cell = util::printable(cell, util::LineBreaks::space);
    }
    return row;
}

// Prints the records of `response` (those with `status`, when given) as a table, in two passes
// over the list (the columns' widths, then the rows) so that no row is kept. A column is padded
// to at most 64 bytes: one long name does not widen every row.
util::Result<void> print_table(const service::HttpResponse& response, const std::string& status,
                               const util::Redactor& redactor) {
    constexpr std::size_t k_max_width = 64;
    constexpr std::size_t k_flush = 64 * 1024;
    const std::array<std::string, 5> heading{"NAME", "CATEGORY", "LANGUAGE", "STATUS", "UPDATED"};
    std::array<size_t, 5> width{};
    const auto widen = [&](const std::array<std::string, 5>& row) {
        for (size_t i = 0; i < row.size(); ++i) {
            width[i] = std::max(width[i], std::min(row[i].size(), k_max_width));
        }
    };
    widen(heading);
    const auto shown = [&](const service::TemplateInfo& t) { return status.empty() || t.status == status; };
    TRY(service::read_templates(response, {.record = [&](const service::TemplateInfo& t) {
                                    if (shown(t)) {
                                        widen(cells_of(t));
                                    }
                                }}));
    std::string out;
    const auto add = [&](const std::array<std::string, 5>& row) {
        for (size_t i = 0; i < row.size(); ++i) {
            out += i + 1 < row.size() ? fmt::format("{:<{}}  ", row[i], width[i]) : row[i] + "\n";
        }
        if (out.size() >= k_flush) {
            print_out(redactor, std::exchange(out, std::string()));  // at a row's end: no secret is split
        }
    };
    add(heading);
    TRY(service::read_templates(response, {.record = [&](const service::TemplateInfo& t) {
                                    if (shown(t)) {
                                        add(cells_of(t));
                                    }
                                }}));
    print_out(redactor, out);
    return {};
}

// Prints the records of `response` as JSON, one a line, compact; nothing when the list cannot be
// read (then it says why).
util::Result<void> print_json(const service::HttpResponse& response, const util::Redactor& redactor) {
    std::string out;
    TRY(service::read_templates(response, {.json = [&](std::string_view line) {
                                    out.append(line);
                                    out += '\n';
                                }}));
    print_out(redactor, out);
    return {};
}

// The template --show NAME [--language L] names: the one, or why not.
util::Result<service::TemplateInfo> find_shown(const service::HttpResponse& response, const TemplatesOptions& opts) {
    std::optional<service::TemplateInfo> found;
    std::vector<std::string> languages;
    TRY(service::read_templates(response, {.record = [&](const service::TemplateInfo& t) {
                                    if (t.name == opts.show && (opts.language.empty() || t.language == opts.language)) {
                                        languages.push_back(util::printable(t.language));
                                        if (!found) {
                                            found = t;
                                        }
                                    }
                                }}));
    if (!found) {
        return util::fail(fmt::format("the account has no template \"{}\"{}", opts.show,
                                      opts.language.empty() ? "" : " in language \"" + opts.language + "\""));
    }
    if (languages.size() > 1) {
        return util::fail(fmt::format("template \"{}\" exists in several languages ({}): add --language", opts.show,
                                      fmt::join(languages, ", ")));
    }
    return std::move(*found);
}

// The `message:` block a campaign needs for `t`, one placeholder per variable (a column of the
// same name, to be mapped), as YAML and as JSON.
struct MessageBlock {
    std::string yaml;
    nlohmann::ordered_json json;
};

MessageBlock message_block(const service::TemplateInfo& t) {
    MessageBlock out;
    out.json = {{"type", "template"}, {"template", t.name}, {"language", t.language}};
    out.yaml = fmt::format("message:\n  type: template\n  template: {}\n  language: {}\n", t.name, t.language);
    const std::string header = util::ascii_lower(t.header);
    const bool text_variable = header == "text" && !campaign::variables_of(t.text_header).empty();
    if (text_variable || header == "image" || header == "video" || header == "document") {
        const std::string kind = text_variable ? "text" : header;
        const std::string value = text_variable ? "{{header}}" : "{{" + header + "_url}}";
        out.json["header"] = {{kind, value}};
        out.yaml += fmt::format("  header: {{{}: \"{}\"", kind, value);
        if (header == "document") {
            out.json["header"]["filename"] = "{{file_name}}";
            out.yaml += ", filename: \"{{file_name}}\"";
        }
        out.yaml += "}\n";
    }
    const auto body = campaign::variables_of(t.body);
    if (!body.named.empty()) {
        out.json["body"] = nlohmann::ordered_json::object();
        out.yaml += "  body:\n";
        for (const auto& name : body.named) {
            out.json["body"][name] = "{{" + name + "}}";
            out.yaml += fmt::format("    {}: \"{{{{{}}}}}\"\n", name, name);
        }
    } else if (body.positional > 0) {
        out.json["body"] = nlohmann::ordered_json::array();
        std::vector<std::string> values;
        for (int n = 1; n <= body.positional; ++n) {
            values.push_back(fmt::format("\"{{{{var{}}}}}\"", n));
            out.json["body"].push_back(fmt::format("{{{{var{}}}}}", n));
        }
        out.yaml += fmt::format("  body: [{}]\n", fmt::join(values, ", "));
    }
    return out;
}

// --show: the template as a phone shows it, then the campaign's message block for it.
int show_template(const service::TemplateInfo& t, const TemplatesOptions& opts, Output& out) {
    const auto block = message_block(t);
    if (opts.json) {
        const nlohmann::ordered_json j = {
            {"id", t.id},         {"name", t.name},       {"language", t.language},       {"category", t.category},
            {"status", t.status}, {"header", t.header},   {"text_header", t.text_header}, {"body", t.body},
            {"footer", t.footer}, {"buttons", t.buttons}, {"message", block.json}};
        print_out(out.redactor(),
                  util::json_safe(j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) + "\n");
        return k_exit_done;
    }
    campaign::TemplateFace face{.header = util::ascii_lower(t.header) == "text"
                                              ? t.text_header
                                              : (t.header.empty() ? std::string() : "[" + t.header + "] " + t.media),
                                .body = t.body,
                                .footer = t.footer,
                                .buttons = t.buttons};
    std::string text = fmt::format("{} ({}) · {} · {}\n", util::printable(t.name), util::printable(t.language),
                                   util::printable(t.category), util::printable(t.status));
    text += campaign::phone_view(face);
    text +=
        "\nA campaign's message for it (map each {{…}} to a column of the CSV; a URL button with a variable "
        "also needs buttons: [{index: N, text: \"{{…}}\"}]):\n\n";
    text += util::printable(block.yaml, util::LineBreaks::keep);
    print_out(out.redactor(), text);
    return k_exit_done;
}

// The service's answer to the template list request, asked again (up to k_attempts, waiting
// as it says or backing off) while it is retryable.
struct ListAnswer {
    service::Outcome outcome;
    service::Completion completion;
    int attempts = 0;  // made, for the message: a refusal is not retried
};

ListAnswer ask_for_templates(service::HttpTransport& transport, const service::HttpRequest& request) {
    queue::RetryPolicy retry(campaign::Retry{});
    ListAnswer answer;
    for (int attempt = 1;; ++attempt) {
        answer.completion = service::perform(transport, request);
        answer.outcome = service::classify(answer.completion, std::chrono::system_clock::now());
        answer.attempts = attempt;
        if (!answer.outcome.retryable() || attempt >= k_attempts) {
            return answer;
        }
        auto wait = answer.outcome.retry_after.value_or(retry.backoff(attempt));
        std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(10'000)));
    }
}

// Says through `out` why `answer` (to `request`, at the service shown as `where`) holds no list
// and returns the exit code; nothing when it holds one.
std::optional<int> refused_list(const ListAnswer& answer, const service::HttpRequest& request, const std::string& where,
                                Output& out) {
    const auto& outcome = answer.outcome;
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
        out.error(fmt::format("could not list templates from {} ({} attempt{}): {}", where, answer.attempts,
                              answer.attempts == 1 ? "" : "s", outcome.error),
                  k_exit_failures);
        return k_exit_failures;
    }
    return std::nullopt;
}

// Prints the list the service answered, `response`, as `opts` asks (one template with --show,
// JSON, or a table) and returns the exit code.
int print_list(const service::HttpResponse& response, const TemplatesOptions& opts, Output& out) {
    if (!opts.show.empty()) {
        // A list that cannot be read exits 3, as without --show; a name it lacks, 2.
        if (auto readable = service::read_templates(response, {}); !readable) {
            out.error(readable.error().message, k_exit_stopped);
            return k_exit_stopped;
        }
        auto found = find_shown(response, opts);
        if (!found) {
            out.error(found.error().message, k_exit_bad_input);
            return k_exit_bad_input;
        }
        return show_template(*found, opts, out);
    }
    auto printed =
        opts.json ? print_json(response, out.redactor()) : print_table(response, opts.status, out.redactor());
    if (!printed) {
        // Not retried: the service answers a list that cannot be read the same way each time.
        out.error(printed.error().message, k_exit_stopped);
        return k_exit_stopped;
    }
    return k_exit_done;
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
    const auto request = service::list_templates_request(*config);
    const auto answer = ask_for_templates(transport, request);
    if (auto code = refused_list(answer, request, service::redacted_url(config->base_url), out)) {
        return *code;
    }
    return print_list(std::get<service::HttpResponse>(answer.completion.result), opts, out);
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
    sub->add_flag("--json", opts->json, "Print the service's records as JSON, one a line");
    auto* show = sub->add_option(
        "--show", opts->show, "Show one template as a phone shows it, and the message: block a campaign needs for it");
    sub->add_option("--language", opts->language, "With --show: the template's language")->needs(show);
    sub->add_flag("--allow-insecure-http", opts->allow_insecure_http,
                  "Allow a plain http:// --base-url to a host other than loopback (the API key travels unencrypted)");
    sub->footer("Without --campaign or --base-url, the service's URL is $WACAMP_BASE_URL.");
    return [opts]() -> int { return list_templates(*opts); };
}

}  // namespace cli
