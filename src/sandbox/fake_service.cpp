#include "sandbox/fake_service.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "sandbox/templates.hpp"
#include "sandbox/validation.hpp"
#include "util/redact.hpp"

namespace sandbox {

struct FakeService::Reply {
    Answer answer;
    Outcome outcome = Outcome::ok;
    std::string message_id;
};

namespace {

using Json = nlohmann::json;

// The request body, parsed, or why it is not JSON.
struct ParsedBody {
    std::optional<Json> json;
    std::string error;
};

ParsedBody parse_body(const std::string& text) {
    if (text.empty()) {
        return {std::nullopt, "the body is empty"};
    }
    try {
        return {Json::parse(text), ""};
    } catch (const Json::parse_error& e) {
        // e.what() quotes the body; the byte offset is enough and cannot leak anything.
        return {std::nullopt, "the body is not valid JSON (byte " + std::to_string(e.byte) + ")"};
    }
}

void redact_strings(Json& value, const util::Redactor& redactor) {
    if (value.is_string()) {
        value = redactor.apply(value.get_ref<const std::string&>());
    } else if (value.is_structured()) {
        for (auto& item : value) {
            redact_strings(item, redactor);
        }
    }
}

// The body as the journal keeps it: no secret, configured or presented, survives.
std::optional<Json> journal_body(const std::optional<Json>& body, const SandboxOptions& options,
                                 const Incoming& request) {
    if (!body) {
        return std::nullopt;
    }
    util::Redactor redactor;
    redactor.add(options.api_key);
    redactor.add(options.access_token);
    redactor.add(request.key.header.value_or(""));
    redactor.add(request.key.query.value_or(""));
    redactor.add(request.authorization.value_or(""));
    if (request.authorization && request.authorization->size() > 7) {
        redactor.add(request.authorization->substr(7));
    }
    Json copy = *body;
    redact_strings(copy, redactor);
    return copy;
}

std::string body_wa_id(const std::optional<Json>& body) {
    if (body && body->is_object()) {
        auto it = body->find("wa_id");
        if (it != body->end() && it->is_string()) {
            return it->get<std::string>();
        }
    }
    return "";
}

}  // namespace

FakeService::FakeService(const SandboxOptions& options, const nlohmann::ordered_json& templates, Journal* journal)
    : m_options(options),
      m_templates(templates),
      m_templates_body(templates_body(templates)),
      m_templates_user(templates_user(templates)),
      m_book(templates, options.paused_templates),
      m_journal(journal),
      m_faults(options.faults) {}

Answer FakeService::handle(const Incoming& request, SteadyTime now, util::TimePoint at) {
    ParsedBody parsed = parse_body(request.body);
    const Json* body = parsed.json ? &*parsed.json : nullptr;
    Reply reply;
    if (request.path == k_templates_path && request.method == "GET") {
        reply = templates(request);
    } else if (request.path == k_send_message_path && request.method == "POST") {
        reply = send_message(request, body, parsed.error, now);
    } else if (request.path == k_send_template_path && request.method == "POST") {
        reply = send_template(request, body, parsed.error, now);
    } else if (request.path == k_status_update_path && request.method == "PUT") {
        reply = status_update(request, body, parsed.error);
    } else {
        reply.outcome = Outcome::invalid;
        reply.answer.status = 404;
        reply.answer.body = not_found_body(request.method, request.path);
    }
    const bool is_send = request.path == k_send_message_path || request.path == k_send_template_path;
    if (is_send && m_options.faults.drop_rate > 0.0) {
        // libcurl silently resends a request whose reused connection closes before any
        // byte came back; a connection per send makes every drop reach the client.
        reply.answer.headers.emplace_back("Connection", "close");
    }
    {
        std::lock_guard<std::mutex> lock(m_faults_mutex);
        reply.answer.delay = m_faults.draw_latency();
    }
    if (m_journal != nullptr) {
        auto kept = journal_body(parsed.json, m_options, request);
        std::string wa_id = is_send ? body_wa_id(parsed.json) : "";
        JournalEntry entry;
        entry.at = at;
        entry.method = request.method;
        entry.path = request.path;
        if (reply.answer.delivery == Delivery::respond) {
            entry.status = reply.answer.status;
        }
        entry.outcome = reply.outcome;
        entry.wa_id = wa_id;
        entry.message_id = reply.message_id;
        entry.body = kept ? &*kept : nullptr;
        entry.peer_port = request.peer_port;
        m_journal->append(entry);
    }
    m_counts[static_cast<size_t>(reply.outcome)].fetch_add(1, std::memory_order_relaxed);
    return std::move(reply.answer);
}

std::array<long, k_outcome_count> FakeService::counts() const {
    std::array<long, k_outcome_count> out{};
    for (size_t i = 0; i < k_outcome_count; ++i) {
        out[i] = m_counts[i].load(std::memory_order_relaxed);
    }
    return out;
}

FakeService::Reply FakeService::templates(const Incoming& request) {
    if (key_revoked()) {
        return unauthorized("The API key has been revoked");
    }
    if (auto problem = check_api_key(m_options.require_key_in, request.key, m_options.api_key)) {
        return unauthorized(*problem);
    }
    Reply reply;
    reply.answer.body =
        m_options.template_changes.empty()
            ? m_templates_body
            : templates_body(changed_templates(m_templates, m_options.template_changes, m_template_sends.load()));
    reply.answer.headers.emplace_back("_user", m_templates_user);
    return reply;
}

FakeService::Reply FakeService::send_message(const Incoming& request, const Json* body, std::string_view body_error,
                                             SteadyTime now) {
    if (auto refused = check_send_access(request, body, body_error)) {
        return std::move(*refused);
    }
    if (auto problem = check_send_message(*body)) {
        return invalid(*problem);
    }
    return deliver((*body)["wa_id"].get_ref<const std::string&>(), request, now);
}

FakeService::Reply FakeService::send_template(const Incoming& request, const Json* body, std::string_view body_error,
                                              SteadyTime now) {
    if (auto refused = check_send_access(request, body, body_error)) {
        return std::move(*refused);
    }
    if (auto problem = check_send_template(*body)) {
        return invalid(*problem);
    }
    if (auto refusal = m_book.check((*body)["templateId"].get<std::string>(), (*body)["params"])) {
        return meta_error(refusal->code, refusal->details);
    }
    Reply reply = deliver((*body)["wa_id"].get_ref<const std::string&>(), request, now);
    if (!reply.message_id.empty()) {
        ++m_template_sends;  // accepted (an answer lost on the way too): it counts for the list's changes
    }
    return reply;
}

std::optional<FakeService::Reply> FakeService::check_send_access(const Incoming& request, const Json* body,
                                                                 std::string_view body_error) {
    if (key_revoked()) {
        return unauthorized("The API key has been revoked");
    }
    if (auto problem = check_api_key(m_options.require_key_in, request.key, m_options.api_key)) {
        return unauthorized(*problem);
    }
    return check_json_request(request, body, body_error);
}

FakeService::Reply FakeService::deliver(const std::string& wa_id, const Incoming& request, SteadyTime now) {
    SendDecision decision;
    int error_status = 500;
    bool lose_answer = false;
    {
        std::lock_guard<std::mutex> lock(m_faults_mutex);
        decision = m_faults.decide_send(wa_id, now);
        if (decision.verdict == SendVerdict::error) {
            error_status = m_faults.draw_error_status();
        }
        lose_answer = decision.verdict == SendVerdict::accept && m_faults.lose_answer(request.connection);
    }
    Reply reply;
    switch (decision.verdict) {
    case SendVerdict::accept:
        reply.message_id = m_ids.next_message_id();
        reply.answer.body = send_ok_body(reply.message_id);
        if (lose_answer) {
            reply.answer.delivery = Delivery::drop;  // delivered (journaled "ok"), never answered
        }
        return reply;
    case SendVerdict::revoked: return unauthorized("The API key has been revoked");
    case SendVerdict::rate_limited:
        reply.outcome = Outcome::rate_limited;
        reply.answer.status = m_options.faults.rate_limit_style == RateLimitStyle::http429 ? 429 : 400;
        reply.answer.headers.emplace_back("Retry-After", std::to_string(m_options.faults.retry_after_s));
        reply.answer.body = meta_error_body(k_rate_limit_hit, m_ids.next_trace_id());
        return reply;
    case SendVerdict::spam_limit:
        reply.outcome = Outcome::spam_limit;
        reply.answer.status = 400;
        reply.answer.body = meta_error_body(k_spam_limit, m_ids.next_trace_id());
        return reply;
    case SendVerdict::meta_error: return meta_error(decision.meta_code);
    case SendVerdict::rejected:
        reply.outcome = Outcome::rejected;
        reply.answer.status = 400;
        reply.answer.body = meta_error_body(k_undeliverable, m_ids.next_trace_id());
        return reply;
    case SendVerdict::error:
        reply.outcome = Outcome::error;
        reply.answer.status = error_status;
        reply.answer.body =
            meta_error_body(error_status == 503 ? k_service_unavailable : k_unknown_error, m_ids.next_trace_id());
        return reply;
    case SendVerdict::dropped:
        reply.outcome = Outcome::dropped;
        reply.answer.delivery = Delivery::drop;
        return reply;
    }
    return reply;
}

FakeService::Reply FakeService::status_update(const Incoming& request, const Json* body, std::string_view body_error) {
    if (key_revoked()) {
        return unauthorized("The access token has been revoked");
    }
    if (auto problem = check_bearer(request.authorization, m_options.access_token)) {
        return unauthorized(*problem);
    }
    if (auto bad = check_json_request(request, body, body_error)) {
        return std::move(*bad);
    }
    if (auto problem = check_status_update(*body)) {
        return invalid(*problem);
    }
    // Like an update-many: an id listed twice is modified once.
    std::set<std::string> ids;
    for (const auto& id : (*body)["ids"]) {
        ids.insert(id.get<std::string>());
    }
    Reply reply;
    reply.answer.body = status_update_ok_body(static_cast<long>(ids.size()));
    return reply;
}

std::optional<FakeService::Reply> FakeService::check_json_request(const Incoming& request, const Json* body,
                                                                  std::string_view body_error) {
    if (!is_json_content_type(request.content_type)) {
        return invalid("Content-Type must be application/json");
    }
    if (body == nullptr) {
        return invalid(body_error);
    }
    return std::nullopt;
}

FakeService::Reply FakeService::unauthorized(std::string_view details) {
    Reply reply;
    reply.outcome = Outcome::unauthorized;
    reply.answer.status = 401;
    reply.answer.body = meta_error_body(k_invalid_token, m_ids.next_trace_id(), {}, details);
    return reply;
}

FakeService::Reply FakeService::meta_error(int code, std::string_view details) {
    Reply reply;
    reply.outcome = Outcome::meta_error;
    reply.answer.status = meta_error_status(code);
    reply.answer.body = meta_error_body(meta_error_for(code), m_ids.next_trace_id(), {}, details);
    return reply;
}

FakeService::Reply FakeService::invalid(std::string_view what) {
    Reply reply;
    reply.outcome = Outcome::invalid;
    reply.answer.status = 400;
    reply.answer.body = meta_error_body(k_invalid_parameter, m_ids.next_trace_id(), what, what);
    return reply;
}

bool FakeService::key_revoked() {
    std::lock_guard<std::mutex> lock(m_faults_mutex);
    return m_faults.key_revoked();
}

}  // namespace sandbox
