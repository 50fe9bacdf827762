#include "agent/sim/engine/chat_template.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kvbench::sim {
namespace {

using nlohmann::json;

constexpr absl::string_view kStart = "<|start|>";
constexpr absl::string_view kEnd = "<|end|>\n";

absl::Status FieldError(size_t index, absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("messages[", index, "].", field, " ", what));
}

// Appends the text of `content`: a string, null, or an array of {"type":"text","text":...}.
absl::Status AppendContent(const json& content, size_t index, std::string* out) {
  if (content.is_null()) return absl::OkStatus();
  if (content.is_string()) {
    out->append(content.get_ref<const std::string&>());
    return absl::OkStatus();
  }
  if (!content.is_array()) {
    return FieldError(index, "content", "must be a string, null or an array of text parts");
  }
  for (size_t part = 0; part < content.size(); ++part) {
    const json& item = content[part];
    const std::string field = absl::StrCat("content[", part, "]");
    if (!item.is_object()) return FieldError(index, field, "must be an object");
    const auto type = item.find("type");
    if (type == item.end() || !type->is_string() || type->get_ref<const std::string&>() != "text") {
      return FieldError(index, absl::StrCat(field, ".type"), "must be \"text\"");
    }
    const auto text = item.find("text");
    if (text == item.end() || !text->is_string()) {
      return FieldError(index, absl::StrCat(field, ".text"), "must be a string");
    }
    out->append(text->get_ref<const std::string&>());
  }
  return absl::OkStatus();
}

// Appends " {key}={value}" for an optional string field; absent, null or empty adds nothing.
absl::Status AppendAttribute(const json& message, const char* key, size_t index, std::string* out) {
  const auto it = message.find(key);
  if (it == message.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) return FieldError(index, key, "must be a string");
  const std::string& value = it->get_ref<const std::string&>();
  if (!value.empty()) absl::StrAppend(out, " ", key, "=", value);
  return absl::OkStatus();
}

absl::Status AppendMessage(const json& message, size_t index, std::string* out) {
  if (!message.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("messages[", index, "] must be an object"));
  }
  const auto role = message.find("role");
  if (role == message.end() || !role->is_string()) {
    return FieldError(index, "role", "must be a string");
  }
  absl::StrAppend(out, kStart, role->get_ref<const std::string&>());
  if (absl::Status s = AppendAttribute(message, "name", index, out); !s.ok()) return s;
  if (absl::Status s = AppendAttribute(message, "tool_call_id", index, out); !s.ok()) return s;
  out->push_back('\n');
  const auto content = message.find("content");
  if (content != message.end()) {
    if (absl::Status s = AppendContent(*content, index, out); !s.ok()) return s;
  }
  const auto tool_calls = message.find("tool_calls");
  if (tool_calls != message.end() && !tool_calls->is_null()) {
    if (!tool_calls->is_array()) return FieldError(index, "tool_calls", "must be an array or null");
    // Invalid UTF-8 is replaced rather than thrown on (no exception crosses this interface).
    if (!tool_calls->empty()) {
      out->append(tool_calls->dump(-1, ' ', false, json::error_handler_t::replace));
    }
  }
  absl::StrAppend(out, kEnd);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> RenderChat(const nlohmann::json& messages, bool add_generation_prompt) {
  if (!messages.is_array()) return absl::InvalidArgumentError("messages must be an array");
  std::string prompt;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (absl::Status s = AppendMessage(messages[i], i, &prompt); !s.ok()) return s;
  }
  if (add_generation_prompt) absl::StrAppend(&prompt, kStart, "assistant\n");
  return prompt;
}

}  // namespace kvbench::sim
