// The built-in template records. Field order and empty-string conventions follow the
// record shown in the interface document.
#include <nlohmann/json.hpp>

#include "sandbox/templates.hpp"

namespace sandbox {

namespace {

constexpr const char* k_records = R"json([
  {
    "_id": "65a1c3e9f2b4d6a8c0e1f203",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "appointment_update",
      "category": "APPOINTMENT_UPDATE",
      "language": "en",
      "header": "text",
      "textHeader": "Appointment update",
      "media": "",
      "mediaHeader": {"image": "", "video": ""},
      "body": "Hi {{1}},\nyour appointment is confirmed for {{2}}.\nReply STOP to opt out.",
      "footer": "Sent by the sandbox",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": [{"id": "", "text": ""}]
    },
    "whatsAppId": "1092837465564738",
    "status": "APPROVED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-01-12T09:15:21.402Z",
    "updatedAt": "2024-01-12T11:02:47.118Z",
    "__v": 0
  },
  {
    "_id": "65b2d4fa03c5e7b9d1f20314",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "spring_offer",
      "category": "MARKETING",
      "language": "en",
      "header": "image",
      "textHeader": "",
      "media": "https://cdn.example.com/sandbox/spring.jpg",
      "mediaHeader": {"image": "https://cdn.example.com/sandbox/spring.jpg", "video": ""},
      "body": "Hi {{1}}, spring is here: {{2}} off everything this week.",
      "footer": "Reply STOP to opt out",
      "button": "quickReply",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": [{"id": "qr-yes", "text": "Tell me more"}, {"id": "qr-no", "text": "Not now"}]
    },
    "whatsAppId": "1092837465564801",
    "status": "PENDING",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-03-02T14:40:05.771Z",
    "updatedAt": "2024-03-02T14:40:05.771Z",
    "__v": 0
  },
  {
    "_id": "65c3e50b14d6f8cae2031425",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "payment_reminder",
      "category": "UTILITY",
      "language": "en_US",
      "header": "text",
      "textHeader": "Payment due",
      "media": "",
      "mediaHeader": {"image": "", "video": ""},
      "body": "Dear {{1}}, your payment of {{2}} is due on {{3}}.",
      "footer": "",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": []
    },
    "whatsAppId": "1092837465564922",
    "status": "REJECTED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-02-20T08:05:13.090Z",
    "updatedAt": "2024-02-21T16:33:59.604Z",
    "__v": 1
  },
  {
    "_id": "65d4f61c25e7a9dbf3142536",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "spring_sale",
      "category": "MARKETING",
      "language": "en",
      "header": "image",
      "textHeader": "",
      "media": "https://cdn.example.com/sandbox/spring-sale.jpg",
      "mediaHeader": {"image": "https://cdn.example.com/sandbox/spring-sale.jpg", "video": ""},
      "body": "Hi {{1}}, our spring sale is on: {{2}} off everything until Sunday.",
      "footer": "Reply STOP to opt out",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": []
    },
    "whatsAppId": "1092837465565043",
    "status": "APPROVED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-03-04T10:12:44.305Z",
    "updatedAt": "2024-03-05T08:27:19.846Z",
    "__v": 0
  },
  {
    "_id": "65e5072d36f8baec04253647",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "thank_you",
      "category": "UTILITY",
      "language": "en",
      "header": "text",
      "textHeader": "Thank you",
      "media": "",
      "mediaHeader": {"image": "", "video": ""},
      "body": "Thank you for shopping with us. We hope to see you again soon.",
      "footer": "",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": []
    },
    "whatsAppId": "1092837465565164",
    "status": "APPROVED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-03-06T12:00:00.000Z",
    "updatedAt": "2024-03-06T15:41:08.512Z",
    "__v": 0
  },
  {
    "_id": "65f6183e4709cbfd15364758",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "order_shipped",
      "category": "UTILITY",
      "language": "en",
      "header": "",
      "textHeader": "",
      "media": "",
      "mediaHeader": {"image": "", "video": ""},
      "body": "Hi {{1}}, your order {{2}} has shipped.",
      "footer": "",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": []
    },
    "whatsAppId": "1092837465565285",
    "status": "APPROVED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-03-08T09:30:00.000Z",
    "updatedAt": "2024-03-08T11:05:37.221Z",
    "__v": 0
  },
  {
    "_id": "6607294f581adc0e26475869",
    "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
    "configuration": {
      "name": "order_shipped",
      "category": "UTILITY",
      "language": "es",
      "header": "",
      "textHeader": "",
      "media": "",
      "mediaHeader": {"image": "", "video": ""},
      "body": "Hola {{1}}, tu pedido {{2}} ha sido enviado.",
      "footer": "",
      "button": "",
      "ctaButtonType": [],
      "ctaButton": [],
      "quickReply": []
    },
    "whatsAppId": "1092837465565306",
    "status": "APPROVED",
    "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
    "createdAt": "2024-03-08T09:31:00.000Z",
    "updatedAt": "2024-03-08T11:06:02.930Z",
    "__v": 0
  }
])json";

}  // namespace

nlohmann::ordered_json builtin_templates() {
    return nlohmann::ordered_json::parse(k_records);
}

}  // namespace sandbox
