#include "sandbox/meta_errors.hpp"

#include <charconv>

#include "sandbox/validation.hpp"

namespace sandbox {

namespace {

constexpr int k_max_times = 1'000'000;

// Returns the whole number `text` spells (digits only, at most `max_digits`), or nothing.
std::optional<long> whole_number(std::string_view text, std::size_t max_digits) {
    if (text.empty() || text.size() > max_digits) {
        return std::nullopt;
    }
    long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.front() == '-' || text.front() == '+') {
        return std::nullopt;
    }
    return value;
}

// The texts of Meta's answers, as its Cloud API documents them.
constexpr MetaError k_known[] = {
    {131056, "(Business Account, Consumer Account) pair rate limit hit",
     "Too many messages sent from the sender phone number to the same recipient phone number in a short period of "
     "time."},
    {131049, "This message was not delivered to maintain healthy ecosystem engagement.",
     "In order to maintain a healthy ecosystem engagement, the message failed to be delivered."},
    {131050,
     "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on "
     "WhatsApp from your business.",
     "The user has stopped marketing messages from this business."},
    {131026, "Message undeliverable",
     "Unable to deliver message. The recipient may not be a WhatsApp user or cannot receive it."},
    {131047, "Re-engagement message",
     "Message failed to send because more than 24 hours have passed since the customer last replied to this "
     "number."},
    {131031, "Account has been locked", "The business account is restricted from messaging users."},
    {131042, "Business eligibility payment issue",
     "Message failed to send because there were one or more errors related to your payment method."},
    {131045, "Incorrect certificate", "Message failed to send due to a phone number registration error."},
    {133010, "Phone number not registered", "The phone number is not registered on the WhatsApp Business Platform."},
    {131064, "Marketing messages are disabled", "Marketing messages are disabled for this business account."},
    {132000, "Number of parameters does not match the expected number of params",
     "The number of variable parameter values included in the request did not match the number of variable "
     "parameters defined in the template."},
    {132001, "Template name does not exist in the translation",
     "The template does not exist in the specified language or the template has not been approved."},
    {132005, "Translated text too long", "Translated text is too long."},
    {132007, "Template format character policy violated", "Template content violates a WhatsApp policy."},
    {132012, "Parameter format does not match format in the created template",
     "Variable parameter values formatted incorrectly."},
    {132015, "Template is Paused", "Template is paused due to low quality so it cannot be sent in a template message."},
    {132016, "Template is Disabled",
     "Template has been paused too many times due to low quality and is now permanently disabled."},
    {132018, "There was an issue with the parameters in your template.", "One or more parameter values are invalid."},
    {130472, "User's number is part of an experiment", "Failed to send message because of an experiment."},
    {368, "Temporarily blocked for policies violations",
     "The WhatsApp Business Account associated with the app has been restricted or disabled for violating a "
     "platform policy."},
};

}  // namespace

util::Result<MetaErrorRule> parse_meta_error(std::string_view text) {
    const auto fail = [&](std::string_view why) {
        return util::fail("--meta-error " + std::string(text) + ": " + std::string(why) +
                          " (WA_ID=CODE or WA_ID=CODExN)");
    };
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) {
        return fail("no '='");
    }
    MetaErrorRule rule;
    rule.wa_id = text.substr(0, equals);
    if (!is_wa_id(rule.wa_id)) {
        return fail("not a wa_id (8 to 15 digits, no '+')");
    }
    std::string_view rest = text.substr(equals + 1);
    const auto x = rest.find('x');
    const auto code = whole_number(rest.substr(0, x), 9);
    if (!code || *code <= 0) {
        return fail("the code must be a positive number");
    }
    rule.code = static_cast<int>(*code);
    if (x != std::string_view::npos) {
        const auto times = whole_number(rest.substr(x + 1), 7);
        if (!times || *times < 1 || *times > k_max_times) {
            return fail("the count after 'x' must be a whole number from 1 to 1000000");
        }
        rule.times = static_cast<int>(*times);
    }
    return rule;
}

MetaError meta_error_for(int code) {
    for (const auto& known : k_known) {
        if (known.code == code) {
            return known;
        }
    }
    return MetaError{code, "Message failed to send", "The sandbox was asked to answer this error code."};
}

int meta_error_status(int code) {
    return code == 131056 ? 429 : 400;
}

MetaErrors::MetaErrors(const std::vector<MetaErrorRule>& rules) {
    for (const auto& rule : rules) {
        m_left[rule.wa_id] = Left{rule.code, rule.times ? *rule.times : -1};
    }
}

int MetaErrors::next(std::string_view wa_id) {
    const auto it = m_left.find(std::string(wa_id));
    if (it == m_left.end() || it->second.remaining == 0) {
        return 0;
    }
    if (it->second.remaining > 0) {
        --it->second.remaining;
    }
    return it->second.code;
}

}  // namespace sandbox
