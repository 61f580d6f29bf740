#include <fmt/core.h>
#include <pthread.h>
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "sandbox/meta_errors.hpp"
#include "sandbox/options.hpp"
#include "sandbox/server.hpp"
#include "sandbox/templates.hpp"
#include "sandbox/validation.hpp"

namespace cli {

namespace {

struct SandboxCommand {
    sandbox::SandboxOptions options;
    long long latency_ms = 0;
    long long jitter_ms = 0;
    long auth_fail_after = -1;
    long spam_limit_after = -1;
    std::string key_in = "either";
    std::string rate_limit_style = "http429";
    std::vector<std::string> meta_errors;     // WA_ID=CODE[xN], read by read_meta_errors
    std::vector<std::string> recategorize;    // NAME=CATEGORY@N, read by read_template_changes
    std::vector<std::string> pause_template;  // NAME@N, read by read_template_changes
    bool tls = false;
    sandbox::TlsOptions tls_files;
    CLI::Option* seed = nullptr;
};

// Returns what is wrong with the options CLI11 cannot check alone, or nothing.
std::optional<std::string> check(const SandboxCommand& cmd) {
    const auto& faults = cmd.options.faults;
    if (faults.error_rate + faults.drop_rate > 1.0) {
        return "--error-rate and --drop-rate add up to more than 1";
    }
    if (faults.lost_answer_rate > 0.0 && faults.drop_rate > 0.0) {
        // A drop closes every send's connection, so no send would come on a reused one.
        return "--lost-answer-rate needs kept-alive connections: it cannot go with --drop-rate";
    }
    for (const auto& number : faults.reject_numbers) {
        if (!sandbox::is_wa_id(number)) {
            return "--reject-number " + number + ": not a wa_id (8 to 15 digits, no '+')";
        }
    }
    return std::nullopt;
}

// Reads every --meta-error into the fault options; returns what is wrong with the first bad
// one, or nothing.
std::optional<std::string> read_meta_errors(SandboxCommand& cmd) {
    auto& rules = cmd.options.faults.meta_errors;
    for (const auto& text : cmd.meta_errors) {
        auto rule = sandbox::parse_meta_error(text);
        if (!rule) {
            return rule.error().message;
        }
        for (const auto& earlier : rules) {
            if (earlier.wa_id == rule->wa_id) {
                return "--meta-error " + text + ": " + rule->wa_id + " is given twice";
            }
        }
        rules.push_back(std::move(*rule));
    }
    return std::nullopt;
}

// Reads every --recategorize and --pause-template into the options; returns what is wrong with
// the first bad one, or nothing.
std::optional<std::string> read_template_changes(SandboxCommand& cmd) {
    for (const auto& [texts, kind] : {std::pair{&cmd.recategorize, sandbox::ChangeKind::recategorize},
                                      std::pair{&cmd.pause_template, sandbox::ChangeKind::pause}}) {
        for (const auto& text : *texts) {
            auto change = sandbox::parse_template_change(text, kind);
            if (!change) {
                return change.error().message;
            }
            cmd.options.template_changes.push_back(std::move(*change));
        }
    }
    return std::nullopt;
}

std::string summary(const std::array<long, sandbox::k_outcome_count>& counts) {
    long total = 0;
    std::string parts;
    for (size_t i = 0; i < counts.size(); ++i) {
        total += counts[i];
        if (counts[i] > 0) {
            parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ",
                                 sandbox::outcome_name(static_cast<sandbox::Outcome>(i)), counts[i]);
        }
    }
    return fmt::format("sandbox: {} requests{}{}", total, parts.empty() ? "" : ": ", parts);
}

// Whether to tell the seed drawn when none was given.
enum class SeedNote { quiet, print };

// Serves until SIGINT or SIGTERM. The signals are blocked in every thread and taken by one
// waiter with sigwait, so stopping happens outside a signal handler. Every line goes through
// `out`, so a closed stdout or stderr is harmless.
int serve(SandboxCommand& cmd, SeedNote seed_note, Output& out) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    auto server = sandbox::Server::bind(cmd.options);
    if (!server) {
        out.error(server.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    const int port = (*server)->port();
    const auto ca_file = (*server)->ca_file();
    const auto listening = fmt::format("listening on {}://127.0.0.1:{}", ca_file ? "https" : "http", port);
    out.result(Level::info, "listening", listening + "\n", {{"message", listening}, {"port", port}});
    if (ca_file) {
        const auto ca = "ca: " + ca_file->string();
        out.result(Level::info, "ca", ca + "\n", {{"message", ca}, {"ca_file", ca_file->string()}});
    }
    if (seed_note == SeedNote::print) {
        const auto note = fmt::format("sandbox: seed {} (pass --seed to repeat a run)", cmd.options.faults.seed);
        out.notice(note, note + "\n");
    }

    std::atomic<bool> signalled{false};
    std::thread waiter([&] {
        int signal = 0;
        sigwait(&signals, &signal);
        signalled = true;
        (*server)->stop();
    });
    auto served = (*server)->serve();
    if (!signalled) {
        pthread_kill(waiter.native_handle(), SIGTERM);  // releases the waiter
    }
    waiter.join();

    const auto counts = summary((*server)->counts());
    out.notice(counts, counts + "\n");
    if (!served) {
        out.error(served.error().message, k_exit_stopped);
        return k_exit_stopped;
    }
    if (auto error = (*server)->journal_error()) {
        out.error(*error, k_exit_failures);
        return k_exit_failures;
    }
    return k_exit_done;
}

// Adds where and how the sandbox listens, and what it accepts.
void add_server_options(CLI::App& sub, SandboxCommand& cmd) {
    auto& opts = cmd.options;
    sub.add_option("--port", opts.port, "Port on 127.0.0.1 (0: a free one)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    sub.add_option("--journal", opts.journal_path, "Append one JSON line per request to this file");
    sub.add_option("--templates", opts.templates_path,
                   "Serve these template records (a JSON array, or {\"data\": [...]})");
    sub.add_option("--api-key", opts.api_key, "The API key to accept")
        ->envname("WACAMP_SANDBOX_API_KEY")
        ->capture_default_str();
    sub.add_option("--access-token", opts.access_token, "The Bearer token to accept")
        ->envname("WACAMP_SANDBOX_ACCESS_TOKEN")
        ->capture_default_str();
    sub.add_option("--require-key-in", cmd.key_in,
                   "Where the API key must be (default either: one place, any present right)")
        ->check(CLI::IsMember({"either", "header", "query", "both"}).description(""))
        ->option_text("either|header|query|both");
    sub.add_option("--threads", opts.threads, "Worker threads (one per open connection)")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    cmd.seed = sub.add_option("--seed", opts.faults.seed, "Seed of every random fault decision");
    sub.add_flag("--tls", cmd.tls,
                 "Serve HTTPS with a CA and a server certificate for 127.0.0.1 and localhost made at start "
                 "(removed on exit); the second line on stdout, \"ca: PATH\", names the CA's certificate "
                 "to give as the campaign's service.ca_file");
    auto* cert = sub.add_option("--tls-cert", cmd.tls_files.cert_path,
                                "Serve HTTPS with this PEM certificate (followed by its chain, if any) instead; "
                                "\"ca: PATH\" names it (implies --tls)")
                     ->option_text("FILE");
    auto* key = sub.add_option("--tls-key", cmd.tls_files.key_path, "The unencrypted PEM private key of --tls-cert")
                    ->option_text("FILE");
    cert->needs(key);
    key->needs(cert);
}

// Adds the fault-injection options, in their own group of the help.
void add_fault_options(CLI::App& sub, SandboxCommand& cmd) {
    auto& faults = cmd.options.faults;
    auto* group = sub.add_option_group("faults", "Fault injection (sends only unless said)");
    group->add_option("--rate-limit", faults.rate_limit, "Throttle sends beyond N in any sliding second")
        ->check(CLI::NonNegativeNumber);
    group
        ->add_option("--rate-limit-style", cmd.rate_limit_style,
                     "HTTP 429 (default) or 400 for a throttled send; code 130429 either way")
        ->check(CLI::IsMember({"http429", "meta400"}).description(""))
        ->option_text("http429|meta400");
    group->add_option("--retry-after", faults.retry_after_s, "Retry-After seconds of a throttled send")
        ->check(CLI::Range(0, 86400))
        ->capture_default_str();
    group->add_option("--error-rate", faults.error_rate, "Share of sends answered 500/503, not delivered")
        ->check(CLI::Range(0.0, 1.0));
    group
        ->add_option("--drop-rate", faults.drop_rate,
                     "Share of sends whose connection is closed with no answer, not delivered")
        ->check(CLI::Range(0.0, 1.0));
    group
        ->add_option("--lost-answer-rate", faults.lost_answer_rate,
                     "Share of sends on a reused kept-alive connection that are delivered and then "
                     "get no answer (the connection is closed)")
        ->check(CLI::Range(0.0, 1.0));
    group->add_option("--latency", cmd.latency_ms, "Milliseconds added before answering any request")
        ->check(CLI::Range(0LL, 600'000LL));
    group->add_option("--latency-jitter", cmd.jitter_ms, "Plus up to this many milliseconds, uniformly")
        ->check(CLI::Range(0LL, 600'000LL));
    group
        ->add_option("--reject-number", faults.reject_numbers,
                     "This wa_id is always answered 400, code 131026 (repeatable)")
        ->allow_extra_args(false);
    group
        ->add_option("--meta-error", cmd.meta_errors,
                     "Answer sends to this wa_id with Meta's error CODE (HTTP 429 for 131056, else 400): the first "
                     "N times, then normally; always without xN (repeatable)")
        ->option_text("WA_ID=CODE[xN]")
        ->allow_extra_args(false);
    group
        ->add_option("--paused-template", cmd.options.paused_templates,
                     "Answer sends of this template (its name) with Meta's 132015, template paused (repeatable)")
        ->option_text("NAME")
        ->allow_extra_args(false);
    group
        ->add_option("--recategorize", cmd.recategorize,
                     "Once N template sends were accepted, list this template with CATEGORY (Meta re-categorised "
                     "it; repeatable)")
        ->option_text("NAME=CATEGORY@N")
        ->allow_extra_args(false);
    group
        ->add_option("--pause-template", cmd.pause_template,
                     "Once N template sends were accepted, list this template as PAUSED (repeatable)")
        ->option_text("NAME@N")
        ->allow_extra_args(false);
    group
        ->add_option("--auth-fail-after", cmd.auth_fail_after,
                     "After N accepted sends every request gets 401, code 190")
        ->check(CLI::NonNegativeNumber);
    group->add_option("--spam-limit-after", cmd.spam_limit_after, "After N accepted sends, sends get 400, code 131048")
        ->check(CLI::NonNegativeNumber);
}

// Turns the parsed option strings and numbers into the sandbox's options.
void apply_parsed(SandboxCommand& cmd) {
    const std::map<std::string, sandbox::KeyIn> key_in{{"either", sandbox::KeyIn::either},
                                                       {"header", sandbox::KeyIn::header},
                                                       {"query", sandbox::KeyIn::query},
                                                       {"both", sandbox::KeyIn::both}};
    cmd.options.require_key_in = key_in.at(cmd.key_in);
    if (cmd.tls || !cmd.tls_files.cert_path.empty()) {
        cmd.options.tls = cmd.tls_files;
    }
    auto& f = cmd.options.faults;
    f.rate_limit_style =
        cmd.rate_limit_style == "meta400" ? sandbox::RateLimitStyle::meta400 : sandbox::RateLimitStyle::http429;
    f.latency = std::chrono::milliseconds(cmd.latency_ms);
    f.latency_jitter = std::chrono::milliseconds(cmd.jitter_ms);
    if (cmd.auth_fail_after >= 0) {
        f.auth_fail_after = cmd.auth_fail_after;
    }
    if (cmd.spam_limit_after >= 0) {
        f.spam_limit_after = cmd.spam_limit_after;
    }
}

// Checks the options, draws a seed when none was given, and serves.
int run_sandbox(SandboxCommand& cmd) {
    Output out(LogFormat::text);
    apply_parsed(cmd);
    if (auto problem = check(cmd);
        problem || (problem = read_meta_errors(cmd)) || (problem = read_template_changes(cmd))) {
        out.error(*problem, k_exit_bad_input);
        return k_exit_bad_input;
    }
    const bool random_seed = cmd.seed->count() == 0;
    if (random_seed) {
        cmd.options.faults.seed = std::random_device{}();
    }
    return serve(cmd, random_seed ? SeedNote::print : SeedNote::quiet, out);
}

}  // namespace

Action add_sandbox(CLI::App& app) {
    auto cmd = std::make_shared<SandboxCommand>();
    auto* sub = app.add_subcommand("sandbox", "Serve a local fake of the service on 127.0.0.1");
    sub->footer(
        "The first line on stdout is \"listening on http://127.0.0.1:PORT\" (https with --tls, "
        "followed by \"ca: PATH\"). Runs until SIGINT or SIGTERM.");
    add_server_options(*sub, *cmd);
    add_fault_options(*sub, *cmd);
    return [cmd] { return run_sandbox(*cmd); };
}

}  // namespace cli
