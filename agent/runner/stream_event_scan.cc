#include "agent/runner/stream_event_scan.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "agent/runner/plain_json_scanner.h"

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

// Collects StreamEventFields from a stream of parse events (from PlainJsonScanner or nlohmann's
// SAX parser, through NlohmannEvents), tracking only the containers the fields live in.
class EventScan {
 public:
  void StartObject() { Open(Type::kObject); }
  void StartArray() { Open(Type::kArray); }
  void End() { frames_.pop_back(); }
  void ObjectKey(absl::string_view name) { key_ = KeyOf(name); }
  void String(absl::string_view text) { Value(Type::kString, text); }
  void Integer(int value) { Value(Type::kInteger, {}, value); }
  void Scalar() { Value(Type::kOther); }  // null, true, false, a float

  bool is_object() const { return is_object_; }
  const StreamEventFields& fields() const { return fields_; }

 private:
  // The containers that hold something Add reads; kOther for any other.
  enum class Frame : uint8_t {
    kOther,
    kRoot,
    kError,
    kUsage,
    kUsageDetails,
    kChoices,
    kChoice,
    kDelta,
    kToolCalls
  };
  enum class Key : uint8_t {
    kOther,
    kError,
    kObject,
    kMessage,
    kUsage,
    kChoices,
    kPromptTokens,
    kCompletionTokens,
    kPromptTokensDetails,
    kCachedTokens,
    kText,
    kDelta,
    kContent,
    kReasoning,
    kReasoningContent,
    kToolCalls
  };
  enum class Type : uint8_t { kOther, kInteger, kString, kObject, kArray };

  static Key KeyOf(absl::string_view name) {
    static const std::pair<absl::string_view, Key> kKeys[] = {
        {"error", Key::kError},
        {"object", Key::kObject},
        {"message", Key::kMessage},
        {"usage", Key::kUsage},
        {"choices", Key::kChoices},
        {"prompt_tokens", Key::kPromptTokens},
        {"completion_tokens", Key::kCompletionTokens},
        {"prompt_tokens_details", Key::kPromptTokensDetails},
        {"cached_tokens", Key::kCachedTokens},
        {"text", Key::kText},
        {"delta", Key::kDelta},
        {"content", Key::kContent},
        {"reasoning", Key::kReasoning},
        {"reasoning_content", Key::kReasoningContent},
        {"tool_calls", Key::kToolCalls},
    };
    for (const auto& [text, key] : kKeys) {
      if (name == text) return key;
    }
    return Key::kOther;
  }

  // A value of `type` in the current container (under key_ when that is an object). Returns
  // the frame a container value opens.
  Frame Place(Type type, absl::string_view text, int integer) {
    const bool non_empty_string = type == Type::kString && !text.empty();
    switch (frames_.empty() ? Frame::kOther : frames_.back()) {
      case Frame::kRoot:
        switch (key_) {
          case Key::kError:
            fields_.has_error = true;
            fields_.error_is_object = type == Type::kObject;
            if (fields_.error_is_object) fields_.error_message.reset();
            return Frame::kError;
          case Key::kObject:
            fields_.object_is_error = type == Type::kString && text == "error";
            break;
          case Key::kMessage:
            fields_.root_message.reset();
            if (type == Type::kString) fields_.root_message = std::string(text);
            break;
          case Key::kUsage:
            return Frame::kUsage;
          case Key::kChoices:
            return type == Type::kArray ? Frame::kChoices : Frame::kOther;
          default:
            break;
        }
        break;
      case Frame::kError:
        if (key_ == Key::kMessage) {
          fields_.error_message.reset();
          if (type == Type::kString) fields_.error_message = std::string(text);
        }
        break;
      case Frame::kUsage:
        if (type == Type::kInteger && key_ == Key::kPromptTokens) fields_.prompt_tokens = integer;
        if (type == Type::kInteger && key_ == Key::kCompletionTokens)
          fields_.completion_tokens = integer;
        if (key_ == Key::kPromptTokensDetails) return Frame::kUsageDetails;
        break;
      case Frame::kUsageDetails:
        if (type == Type::kInteger && key_ == Key::kCachedTokens) fields_.cached_tokens = integer;
        break;
      case Frame::kChoices:
        return Frame::kChoice;
      case Frame::kChoice:
        if (key_ == Key::kText && non_empty_string) fields_.token = true;
        if (key_ == Key::kDelta) return Frame::kDelta;
        break;
      case Frame::kDelta:
        if (non_empty_string &&
            (key_ == Key::kContent || key_ == Key::kReasoning || key_ == Key::kReasoningContent)) {
          fields_.token = true;
        }
        if (key_ == Key::kToolCalls && type == Type::kArray) return Frame::kToolCalls;
        break;
      case Frame::kToolCalls:
        fields_.token = true;  // an element: the list is not empty
        break;
      case Frame::kOther:
        break;
    }
    return Frame::kOther;
  }

  void Value(Type type, absl::string_view text = {}, int integer = 0) {
    if (frames_.empty()) return;  // a root that is not an object: is_object stays false
    Place(type, text, integer);
  }

  void Open(Type type) {
    if (frames_.empty()) {
      is_object_ = type == Type::kObject;
      frames_.push_back(is_object_ ? Frame::kRoot : Frame::kOther);
      return;
    }
    Frame frame = Place(type, {}, 0);
    // Only objects hold keys, only the arrays above hold the elements read.
    const bool object_frame = frame == Frame::kError || frame == Frame::kUsage ||
                              frame == Frame::kUsageDetails || frame == Frame::kChoice ||
                              frame == Frame::kDelta;
    if ((object_frame && type != Type::kObject) ||
        ((frame == Frame::kChoices || frame == Frame::kToolCalls) && type != Type::kArray)) {
      frame = Frame::kOther;
    }
    frames_.push_back(frame);
  }

  absl::InlinedVector<Frame, 16> frames_;
  Key key_ = Key::kOther;
  bool is_object_ = false;
  StreamEventFields fields_;
};

// nlohmann's SAX interface (nlohmann/detail/input/json_sax.hpp) over an EventScan.
class NlohmannEvents {
 public:
  explicit NlohmannEvents(EventScan* scan) : scan_(scan) {}

  bool null() { return Scalar(); }
  bool boolean(bool) { return Scalar(); }
  // get<int> of an integer is a static_cast, whatever its width: so is this.
  bool number_integer(Json::number_integer_t value) {
    scan_->Integer(static_cast<int>(value));
    return true;
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    scan_->Integer(static_cast<int>(value));
    return true;
  }
  bool number_float(Json::number_float_t, const std::string&) { return Scalar(); }
  bool string(std::string& value) {
    scan_->String(value);
    return true;
  }
  bool binary(Json::binary_t&) { return Scalar(); }
  bool start_object(std::size_t) {
    scan_->StartObject();
    return true;
  }
  bool key(std::string& name) {
    scan_->ObjectKey(name);
    return true;
  }
  bool end_object() {
    scan_->End();
    return true;
  }
  bool start_array(std::size_t) {
    scan_->StartArray();
    return true;
  }
  bool end_array() {
    scan_->End();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  bool Scalar() {
    scan_->Scalar();
    return true;
  }
  EventScan* scan_;
};

}  // namespace

std::optional<StreamEventFields> ScanStreamEvent(absl::string_view payload) {
  {
    EventScan scan;
    if (PlainJsonScanner<EventScan>(payload, &scan).Run()) {
      if (!scan.is_object()) return std::nullopt;
      return scan.fields();
    }
  }
  EventScan scan;
  NlohmannEvents events(&scan);
  if (!Json::sax_parse(payload.begin(), payload.end(), &events) || !scan.is_object()) {
    return std::nullopt;
  }
  return scan.fields();
}

}  // namespace kvbench::runner
