// Generated from webhook.yml by `npm run line-schemas` (src/line/openapi/webhook-validator-source.ts).
// Do not edit: test/line/webhook-event-validator.test.ts fails when this file is stale.
import runtime0 from "ajv-formats/dist/formats.js";
import runtime1 from "ajv/dist/runtime/ucs2length.js";

export const validate = validate10;
export default validate10;
const schema11 = {"$ref":"webhook#/definitions/Event"};
const schema13 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"required":["type"],"properties":{"type":{"enum":["message","unsend","follow","unfollow","join","leave","memberJoined","memberLeft","postback","videoPlayComplete","beacon","accountLink","membership","module","activated","deactivated","botSuspended","botResumed","delivery"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"message"}}},"then":{"$ref":"webhook#/definitions/MessageEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"unsend"}}},"then":{"$ref":"webhook#/definitions/UnsendEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"follow"}}},"then":{"$ref":"webhook#/definitions/FollowEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"unfollow"}}},"then":{"$ref":"webhook#/definitions/UnfollowEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"join"}}},"then":{"$ref":"webhook#/definitions/JoinEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"leave"}}},"then":{"$ref":"webhook#/definitions/LeaveEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"memberJoined"}}},"then":{"$ref":"webhook#/definitions/MemberJoinedEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"memberLeft"}}},"then":{"$ref":"webhook#/definitions/MemberLeftEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"postback"}}},"then":{"$ref":"webhook#/definitions/PostbackEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"videoPlayComplete"}}},"then":{"$ref":"webhook#/definitions/VideoPlayCompleteEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"beacon"}}},"then":{"$ref":"webhook#/definitions/BeaconEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"accountLink"}}},"then":{"$ref":"webhook#/definitions/AccountLinkEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"membership"}}},"then":{"$ref":"webhook#/definitions/MembershipEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"module"}}},"then":{"$ref":"webhook#/definitions/ModuleEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"activated"}}},"then":{"$ref":"webhook#/definitions/ActivatedEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"deactivated"}}},"then":{"$ref":"webhook#/definitions/DeactivatedEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"botSuspended"}}},"then":{"$ref":"webhook#/definitions/BotSuspendedEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"botResumed"}}},"then":{"$ref":"webhook#/definitions/BotResumedEvent"}},{"if":{"required":["type"],"properties":{"type":{"const":"delivery"}}},"then":{"$ref":"webhook#/definitions/PnpDeliveryCompletionEvent"}}]};
const schema14 = {"required":["type","timestamp","mode","webhookEventId","deliveryContext"],"type":"object","properties":{"type":{"type":"string"},"source":{"$ref":"webhook#/definitions/Source"},"timestamp":{"type":"integer","format":"int64"},"mode":{"$ref":"webhook#/definitions/EventMode"},"webhookEventId":{"type":"string"},"deliveryContext":{"$ref":"webhook#/definitions/DeliveryContext"}}};
const schema23 = {"type":"string","enum":["active","standby"]};
const schema24 = {"type":"object","required":["isRedelivery"],"properties":{"isRedelivery":{"type":"boolean"}}};
const schema15 = {"allOf":[{"$ref":"webhook#/definitions/Source.base"},{"required":["type"],"properties":{"type":{"enum":["user","group","room"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"user"}}},"then":{"$ref":"webhook#/definitions/UserSource"}},{"if":{"required":["type"],"properties":{"type":{"const":"group"}}},"then":{"$ref":"webhook#/definitions/GroupSource"}},{"if":{"required":["type"],"properties":{"type":{"const":"room"}}},"then":{"$ref":"webhook#/definitions/RoomSource"}}]};
const schema16 = {"required":["type"],"type":"object","properties":{"type":{"type":"string"}}};
const schema17 = {"allOf":[{"$ref":"webhook#/definitions/Source.base"},{"type":"object","required":["type"],"properties":{"userId":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["user"]}}}]};

function validate15(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate15.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate15.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Source.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate15.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate15.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.userId !== undefined){
if(typeof data.userId !== "string"){
validate15.errors = [{instancePath:instancePath+"/userId",schemaPath:"#/allOf/1/properties/userId/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate15.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate15.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "user")){
validate15.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema17.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs9 === errors;
}
}
validate15.errors = vErrors;
return errors === 0;
}

const schema19 = {"allOf":[{"$ref":"webhook#/definitions/Source.base"},{"type":"object","required":["type","groupId"],"properties":{"groupId":{"type":"string"},"userId":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["group"]}}}]};

function validate17(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate17.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate17.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Source.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate17.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.type === undefined) && (missing1 = "type")) || ((data.groupId === undefined) && (missing1 = "groupId"))){
validate17.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.groupId !== undefined){
const _errs7 = errors;
if(typeof data.groupId !== "string"){
validate17.errors = [{instancePath:instancePath+"/groupId",schemaPath:"#/allOf/1/properties/groupId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs7 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.userId !== undefined){
const _errs9 = errors;
if(typeof data.userId !== "string"){
validate17.errors = [{instancePath:instancePath+"/userId",schemaPath:"#/allOf/1/properties/userId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate17.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs11 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate17.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "group")){
validate17.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema19.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs11 === errors;
}
}
validate17.errors = vErrors;
return errors === 0;
}

const schema21 = {"allOf":[{"$ref":"webhook#/definitions/Source.base"},{"type":"object","required":["type","roomId"],"properties":{"userId":{"type":"string"},"roomId":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["room"]}}}]};

function validate19(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate19.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate19.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Source.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate19.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.type === undefined) && (missing1 = "type")) || ((data.roomId === undefined) && (missing1 = "roomId"))){
validate19.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.userId !== undefined){
const _errs7 = errors;
if(typeof data.userId !== "string"){
validate19.errors = [{instancePath:instancePath+"/userId",schemaPath:"#/allOf/1/properties/userId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs7 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.roomId !== undefined){
const _errs9 = errors;
if(typeof data.roomId !== "string"){
validate19.errors = [{instancePath:instancePath+"/roomId",schemaPath:"#/allOf/1/properties/roomId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate19.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs11 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate19.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "room")){
validate19.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema21.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs11 === errors;
}
}
validate19.errors = vErrors;
return errors === 0;
}


function validate14(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate14.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate14.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Source.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate14.errors = [{instancePath,schemaPath:"webhook#/definitions/Source.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate14.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
let data1 = data.type;
if(!(((data1 === "user") || (data1 === "group")) || (data1 === "room"))){
validate14.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema15.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs7 = errors;
const _errs8 = errors;
let valid4 = true;
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("user" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs9 === errors;
errors = _errs8;
if(vErrors !== null){
if(_errs8){
vErrors.length = _errs8;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs11 = errors;
if(!(validate15(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
var _valid0 = _errs11 === errors;
valid4 = _valid0;
}
if(!valid4){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate14.errors = vErrors;
return false;
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs12 = errors;
const _errs13 = errors;
let valid6 = true;
const _errs14 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("group" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs14 === errors;
errors = _errs13;
if(vErrors !== null){
if(_errs13){
vErrors.length = _errs13;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs16 = errors;
if(!(validate17(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate17.errors : vErrors.concat(validate17.errors);
errors = vErrors.length;
}
var _valid1 = _errs16 === errors;
valid6 = _valid1;
}
if(!valid6){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate14.errors = vErrors;
return false;
}
var valid0 = _errs12 === errors;
if(valid0){
const _errs17 = errors;
const _errs18 = errors;
let valid8 = true;
const _errs19 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing4;
if((data.type === undefined) && (missing4 = "type")){
const err6 = {};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
else {
if(data.type !== undefined){
if("room" !== data.type){
const err7 = {};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
}
}
var _valid2 = _errs19 === errors;
errors = _errs18;
if(vErrors !== null){
if(_errs18){
vErrors.length = _errs18;
}
else {
vErrors = null;
}
}
if(_valid2){
const _errs21 = errors;
if(!(validate19(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate19.errors : vErrors.concat(validate19.errors);
errors = vErrors.length;
}
var _valid2 = _errs21 === errors;
valid8 = _valid2;
}
if(!valid8){
const err8 = {instancePath,schemaPath:"#/allOf/4/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
validate14.errors = vErrors;
return false;
}
var valid0 = _errs17 === errors;
}
}
}
}
validate14.errors = vErrors;
return errors === 0;
}

const formats0 = runtime0.fullFormats.int64;

function validate13(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(errors === 0){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((((((data.type === undefined) && (missing0 = "type")) || ((data.timestamp === undefined) && (missing0 = "timestamp"))) || ((data.mode === undefined) && (missing0 = "mode"))) || ((data.webhookEventId === undefined) && (missing0 = "webhookEventId"))) || ((data.deliveryContext === undefined) && (missing0 = "deliveryContext"))){
validate13.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs1 = errors;
if(typeof data.type !== "string"){
validate13.errors = [{instancePath:instancePath+"/type",schemaPath:"#/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid0 = _errs1 === errors;
}
else {
var valid0 = true;
}
if(valid0){
if(data.source !== undefined){
const _errs3 = errors;
if(!(validate14(data.source, {instancePath:instancePath+"/source",parentData:data,parentDataProperty:"source",rootData}))){
vErrors = vErrors === null ? validate14.errors : vErrors.concat(validate14.errors);
errors = vErrors.length;
}
var valid0 = _errs3 === errors;
}
else {
var valid0 = true;
}
if(valid0){
if(data.timestamp !== undefined){
let data2 = data.timestamp;
const _errs4 = errors;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
validate13.errors = [{instancePath:instancePath+"/timestamp",schemaPath:"#/properties/timestamp/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs4){
if((typeof data2 == "number") && (isFinite(data2))){
if(!(formats0.validate(data2))){
validate13.errors = [{instancePath:instancePath+"/timestamp",schemaPath:"#/properties/timestamp/format",keyword:"format",params:{format: "int64"}}];
return false;
}
}
}
var valid0 = _errs4 === errors;
}
else {
var valid0 = true;
}
if(valid0){
if(data.mode !== undefined){
let data3 = data.mode;
const _errs6 = errors;
if(typeof data3 !== "string"){
validate13.errors = [{instancePath:instancePath+"/mode",schemaPath:"webhook#/definitions/EventMode/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((data3 === "active") || (data3 === "standby"))){
validate13.errors = [{instancePath:instancePath+"/mode",schemaPath:"webhook#/definitions/EventMode/enum",keyword:"enum",params:{allowedValues: schema23.enum}}];
return false;
}
var valid0 = _errs6 === errors;
}
else {
var valid0 = true;
}
if(valid0){
if(data.webhookEventId !== undefined){
const _errs9 = errors;
if(typeof data.webhookEventId !== "string"){
validate13.errors = [{instancePath:instancePath+"/webhookEventId",schemaPath:"#/properties/webhookEventId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid0 = _errs9 === errors;
}
else {
var valid0 = true;
}
if(valid0){
if(data.deliveryContext !== undefined){
let data5 = data.deliveryContext;
const _errs11 = errors;
const _errs12 = errors;
if(errors === _errs12){
if(data5 && typeof data5 == "object" && !Array.isArray(data5)){
let missing1;
if((data5.isRedelivery === undefined) && (missing1 = "isRedelivery")){
validate13.errors = [{instancePath:instancePath+"/deliveryContext",schemaPath:"webhook#/definitions/DeliveryContext/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data5.isRedelivery !== undefined){
if(typeof data5.isRedelivery !== "boolean"){
validate13.errors = [{instancePath:instancePath+"/deliveryContext/isRedelivery",schemaPath:"webhook#/definitions/DeliveryContext/properties/isRedelivery/type",keyword:"type",params:{type: "boolean"}}];
return false;
}
}
}
}
else {
validate13.errors = [{instancePath:instancePath+"/deliveryContext",schemaPath:"webhook#/definitions/DeliveryContext/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs11 === errors;
}
else {
var valid0 = true;
}
}
}
}
}
}
}
}
else {
validate13.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
validate13.errors = vErrors;
return errors === 0;
}

const schema25 = {"type":"object","allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["type","message"],"properties":{"replyToken":{"type":"string"},"message":{"$ref":"webhook#/definitions/MessageContent"}}},{"required":["type"],"properties":{"type":{"enum":["message"]}}}]};
const schema26 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"required":["type"],"properties":{"type":{"enum":["text","image","video","audio","file","location","sticker"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"text"}}},"then":{"$ref":"webhook#/definitions/TextMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"image"}}},"then":{"$ref":"webhook#/definitions/ImageMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"video"}}},"then":{"$ref":"webhook#/definitions/VideoMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"audio"}}},"then":{"$ref":"webhook#/definitions/AudioMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"file"}}},"then":{"$ref":"webhook#/definitions/FileMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"location"}}},"then":{"$ref":"webhook#/definitions/LocationMessageContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"sticker"}}},"then":{"$ref":"webhook#/definitions/StickerMessageContent"}}]};
const schema27 = {"type":"object","required":["type","id"],"properties":{"type":{"type":"string"},"id":{"type":"string"}}};
const schema28 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["text","quoteToken"],"properties":{"text":{"type":"string"},"emojis":{"type":"array","items":{"$ref":"webhook#/definitions/Emoji"}},"mention":{"$ref":"webhook#/definitions/Mention"},"quoteToken":{"type":"string"},"quotedMessageId":{"type":"string"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["text"]}}}]};
const schema30 = {"required":["index","length","productId","emojiId"],"type":"object","properties":{"index":{"type":"integer"},"length":{"type":"integer"},"productId":{"type":"string"},"emojiId":{"type":"string"}}};
const schema31 = {"required":["mentionees"],"type":"object","properties":{"mentionees":{"type":"array","items":{"$ref":"webhook#/definitions/Mentionee"}}}};
const schema32 = {"allOf":[{"$ref":"webhook#/definitions/Mentionee.base"},{"required":["type"],"properties":{"type":{"enum":["user","all"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"user"}}},"then":{"$ref":"webhook#/definitions/UserMentionee"}},{"if":{"required":["type"],"properties":{"type":{"const":"all"}}},"then":{"$ref":"webhook#/definitions/AllMentionee"}}]};
const schema33 = {"required":["type","index","length"],"type":"object","properties":{"type":{"type":"string"},"index":{"type":"integer","format":"int32"},"length":{"type":"integer","format":"int32"}}};
const formats2 = runtime0.fullFormats.int32;
const schema34 = {"allOf":[{"$ref":"webhook#/definitions/Mentionee.base"},{"type":"object","properties":{"userId":{"type":"string"},"isSelf":{"type":"boolean"}}},{"required":["type"],"properties":{"type":{"enum":["user"]}}}]};

function validate29(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((((data.type === undefined) && (missing0 = "type")) || ((data.index === undefined) && (missing0 = "index"))) || ((data.length === undefined) && (missing0 = "length"))){
validate29.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate29.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Mentionee.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.index !== undefined){
let data1 = data.index;
const _errs5 = errors;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate29.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs5){
if((typeof data1 == "number") && (isFinite(data1))){
if(!(formats2.validate(data1))){
validate29.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.length !== undefined){
let data2 = data.length;
const _errs7 = errors;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
validate29.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs7){
if((typeof data2 == "number") && (isFinite(data2))){
if(!(formats2.validate(data2))){
validate29.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs7 === errors;
}
else {
var valid2 = true;
}
}
}
}
}
else {
validate29.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs9 = errors;
if(errors === _errs9){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.userId !== undefined){
const _errs11 = errors;
if(typeof data.userId !== "string"){
validate29.errors = [{instancePath:instancePath+"/userId",schemaPath:"#/allOf/1/properties/userId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.isSelf !== undefined){
const _errs13 = errors;
if(typeof data.isSelf !== "boolean"){
validate29.errors = [{instancePath:instancePath+"/isSelf",schemaPath:"#/allOf/1/properties/isSelf/type",keyword:"type",params:{type: "boolean"}}];
return false;
}
var valid3 = _errs13 === errors;
}
else {
var valid3 = true;
}
}
}
else {
validate29.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs9 === errors;
if(valid0){
const _errs15 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate29.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "user")){
validate29.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema34.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs15 === errors;
}
}
validate29.errors = vErrors;
return errors === 0;
}

const schema36 = {"allOf":[{"$ref":"webhook#/definitions/Mentionee.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["all"]}}}]};

function validate31(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((((data.type === undefined) && (missing0 = "type")) || ((data.index === undefined) && (missing0 = "index"))) || ((data.length === undefined) && (missing0 = "length"))){
validate31.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate31.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Mentionee.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.index !== undefined){
let data1 = data.index;
const _errs5 = errors;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate31.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs5){
if((typeof data1 == "number") && (isFinite(data1))){
if(!(formats2.validate(data1))){
validate31.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.length !== undefined){
let data2 = data.length;
const _errs7 = errors;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
validate31.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs7){
if((typeof data2 == "number") && (isFinite(data2))){
if(!(formats2.validate(data2))){
validate31.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs7 === errors;
}
else {
var valid2 = true;
}
}
}
}
}
else {
validate31.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs9 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate31.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs9 === errors;
if(valid0){
const _errs11 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate31.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "all")){
validate31.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema36.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs11 === errors;
}
}
validate31.errors = vErrors;
return errors === 0;
}


function validate28(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((((data.type === undefined) && (missing0 = "type")) || ((data.index === undefined) && (missing0 = "index"))) || ((data.length === undefined) && (missing0 = "length"))){
validate28.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate28.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/Mentionee.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.index !== undefined){
let data1 = data.index;
const _errs5 = errors;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate28.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs5){
if((typeof data1 == "number") && (isFinite(data1))){
if(!(formats2.validate(data1))){
validate28.errors = [{instancePath:instancePath+"/index",schemaPath:"webhook#/definitions/Mentionee.base/properties/index/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.length !== undefined){
let data2 = data.length;
const _errs7 = errors;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
validate28.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs7){
if((typeof data2 == "number") && (isFinite(data2))){
if(!(formats2.validate(data2))){
validate28.errors = [{instancePath:instancePath+"/length",schemaPath:"webhook#/definitions/Mentionee.base/properties/length/format",keyword:"format",params:{format: "int32"}}];
return false;
}
}
}
var valid2 = _errs7 === errors;
}
else {
var valid2 = true;
}
}
}
}
}
else {
validate28.errors = [{instancePath,schemaPath:"webhook#/definitions/Mentionee.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate28.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
let data3 = data.type;
if(!((data3 === "user") || (data3 === "all"))){
validate28.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema32.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs9 === errors;
if(valid0){
const _errs11 = errors;
const _errs12 = errors;
let valid4 = true;
const _errs13 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("user" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs13 === errors;
errors = _errs12;
if(vErrors !== null){
if(_errs12){
vErrors.length = _errs12;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs15 = errors;
if(!(validate29(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate29.errors : vErrors.concat(validate29.errors);
errors = vErrors.length;
}
var _valid0 = _errs15 === errors;
valid4 = _valid0;
}
if(!valid4){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate28.errors = vErrors;
return false;
}
var valid0 = _errs11 === errors;
if(valid0){
const _errs16 = errors;
const _errs17 = errors;
let valid6 = true;
const _errs18 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("all" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs18 === errors;
errors = _errs17;
if(vErrors !== null){
if(_errs17){
vErrors.length = _errs17;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs20 = errors;
if(!(validate31(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate31.errors : vErrors.concat(validate31.errors);
errors = vErrors.length;
}
var _valid1 = _errs20 === errors;
valid6 = _valid1;
}
if(!valid6){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate28.errors = vErrors;
return false;
}
var valid0 = _errs16 === errors;
}
}
}
validate28.errors = vErrors;
return errors === 0;
}


function validate27(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(errors === 0){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.mentionees === undefined) && (missing0 = "mentionees")){
validate27.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.mentionees !== undefined){
let data0 = data.mentionees;
const _errs1 = errors;
if(errors === _errs1){
if(Array.isArray(data0)){
var valid1 = true;
const len0 = data0.length;
for(let i0=0; i0<len0; i0++){
const _errs3 = errors;
if(!(validate28(data0[i0], {instancePath:instancePath+"/mentionees/" + i0,parentData:data0,parentDataProperty:i0,rootData}))){
vErrors = vErrors === null ? validate28.errors : vErrors.concat(validate28.errors);
errors = vErrors.length;
}
var valid1 = _errs3 === errors;
if(!valid1){
break;
}
}
}
else {
validate27.errors = [{instancePath:instancePath+"/mentionees",schemaPath:"#/properties/mentionees/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
}
}
}
else {
validate27.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
validate27.errors = vErrors;
return errors === 0;
}


function validate26(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate26.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate26.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate26.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate26.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.text === undefined) && (missing1 = "text")) || ((data.quoteToken === undefined) && (missing1 = "quoteToken"))){
validate26.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.text !== undefined){
const _errs9 = errors;
if(typeof data.text !== "string"){
validate26.errors = [{instancePath:instancePath+"/text",schemaPath:"#/allOf/1/properties/text/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.emojis !== undefined){
let data3 = data.emojis;
const _errs11 = errors;
if(errors === _errs11){
if(Array.isArray(data3)){
var valid4 = true;
const len0 = data3.length;
for(let i0=0; i0<len0; i0++){
let data4 = data3[i0];
const _errs13 = errors;
const _errs14 = errors;
if(errors === _errs14){
if(data4 && typeof data4 == "object" && !Array.isArray(data4)){
let missing2;
if(((((data4.index === undefined) && (missing2 = "index")) || ((data4.length === undefined) && (missing2 = "length"))) || ((data4.productId === undefined) && (missing2 = "productId"))) || ((data4.emojiId === undefined) && (missing2 = "emojiId"))){
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0,schemaPath:"webhook#/definitions/Emoji/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data4.index !== undefined){
let data5 = data4.index;
const _errs16 = errors;
if(!(((typeof data5 == "number") && (!(data5 % 1) && !isNaN(data5))) && (isFinite(data5)))){
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0+"/index",schemaPath:"webhook#/definitions/Emoji/properties/index/type",keyword:"type",params:{type: "integer"}}];
return false;
}
var valid6 = _errs16 === errors;
}
else {
var valid6 = true;
}
if(valid6){
if(data4.length !== undefined){
let data6 = data4.length;
const _errs18 = errors;
if(!(((typeof data6 == "number") && (!(data6 % 1) && !isNaN(data6))) && (isFinite(data6)))){
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0+"/length",schemaPath:"webhook#/definitions/Emoji/properties/length/type",keyword:"type",params:{type: "integer"}}];
return false;
}
var valid6 = _errs18 === errors;
}
else {
var valid6 = true;
}
if(valid6){
if(data4.productId !== undefined){
const _errs20 = errors;
if(typeof data4.productId !== "string"){
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0+"/productId",schemaPath:"webhook#/definitions/Emoji/properties/productId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid6 = _errs20 === errors;
}
else {
var valid6 = true;
}
if(valid6){
if(data4.emojiId !== undefined){
const _errs22 = errors;
if(typeof data4.emojiId !== "string"){
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0+"/emojiId",schemaPath:"webhook#/definitions/Emoji/properties/emojiId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid6 = _errs22 === errors;
}
else {
var valid6 = true;
}
}
}
}
}
}
else {
validate26.errors = [{instancePath:instancePath+"/emojis/" + i0,schemaPath:"webhook#/definitions/Emoji/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid4 = _errs13 === errors;
if(!valid4){
break;
}
}
}
else {
validate26.errors = [{instancePath:instancePath+"/emojis",schemaPath:"#/allOf/1/properties/emojis/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.mention !== undefined){
const _errs24 = errors;
if(!(validate27(data.mention, {instancePath:instancePath+"/mention",parentData:data,parentDataProperty:"mention",rootData}))){
vErrors = vErrors === null ? validate27.errors : vErrors.concat(validate27.errors);
errors = vErrors.length;
}
var valid3 = _errs24 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quoteToken !== undefined){
const _errs25 = errors;
if(typeof data.quoteToken !== "string"){
validate26.errors = [{instancePath:instancePath+"/quoteToken",schemaPath:"#/allOf/1/properties/quoteToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs25 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quotedMessageId !== undefined){
const _errs27 = errors;
if(typeof data.quotedMessageId !== "string"){
validate26.errors = [{instancePath:instancePath+"/quotedMessageId",schemaPath:"#/allOf/1/properties/quotedMessageId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs27 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs29 = errors;
if(typeof data.markAsReadToken !== "string"){
validate26.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs29 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
}
}
}
else {
validate26.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs31 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
validate26.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing3}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "text")){
validate26.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema28.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs31 === errors;
}
}
validate26.errors = vErrors;
return errors === 0;
}

const schema38 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["contentProvider","quoteToken"],"properties":{"contentProvider":{"$ref":"webhook#/definitions/ContentProvider"},"imageSet":{"$ref":"webhook#/definitions/ImageSet"},"quoteToken":{"type":"string"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["image"]}}}]};
const schema40 = {"required":["type"],"type":"object","properties":{"type":{"type":"string","enum":["line","external"]},"originalContentUrl":{"type":"string","format":"uri"},"previewImageUrl":{"format":"uri","type":"string"}}};
const schema41 = {"type":"object","required":["id"],"properties":{"id":{"type":"string"},"index":{"type":"integer"},"total":{"type":"integer"}}};
const formats14 = runtime0.fullFormats.uri;

function validate36(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate36.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate36.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate36.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate36.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.contentProvider === undefined) && (missing1 = "contentProvider")) || ((data.quoteToken === undefined) && (missing1 = "quoteToken"))){
validate36.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.contentProvider !== undefined){
let data2 = data.contentProvider;
const _errs9 = errors;
const _errs10 = errors;
if(errors === _errs10){
if(data2 && typeof data2 == "object" && !Array.isArray(data2)){
let missing2;
if((data2.type === undefined) && (missing2 = "type")){
validate36.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data2.type !== undefined){
let data3 = data2.type;
const _errs12 = errors;
if(typeof data3 !== "string"){
validate36.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((data3 === "line") || (data3 === "external"))){
validate36.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/enum",keyword:"enum",params:{allowedValues: schema40.properties.type.enum}}];
return false;
}
var valid5 = _errs12 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data2.originalContentUrl !== undefined){
let data4 = data2.originalContentUrl;
const _errs14 = errors;
if(errors === _errs14){
if(errors === _errs14){
if(typeof data4 === "string"){
if(!(formats14(data4))){
validate36.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate36.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs14 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data2.previewImageUrl !== undefined){
let data5 = data2.previewImageUrl;
const _errs16 = errors;
if(errors === _errs16){
if(errors === _errs16){
if(typeof data5 === "string"){
if(!(formats14(data5))){
validate36.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate36.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs16 === errors;
}
else {
var valid5 = true;
}
}
}
}
}
else {
validate36.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.imageSet !== undefined){
let data6 = data.imageSet;
const _errs18 = errors;
const _errs19 = errors;
if(errors === _errs19){
if(data6 && typeof data6 == "object" && !Array.isArray(data6)){
let missing3;
if((data6.id === undefined) && (missing3 = "id")){
validate36.errors = [{instancePath:instancePath+"/imageSet",schemaPath:"webhook#/definitions/ImageSet/required",keyword:"required",params:{missingProperty: missing3}}];
return false;
}
else {
if(data6.id !== undefined){
const _errs21 = errors;
if(typeof data6.id !== "string"){
validate36.errors = [{instancePath:instancePath+"/imageSet/id",schemaPath:"webhook#/definitions/ImageSet/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid7 = _errs21 === errors;
}
else {
var valid7 = true;
}
if(valid7){
if(data6.index !== undefined){
let data8 = data6.index;
const _errs23 = errors;
if(!(((typeof data8 == "number") && (!(data8 % 1) && !isNaN(data8))) && (isFinite(data8)))){
validate36.errors = [{instancePath:instancePath+"/imageSet/index",schemaPath:"webhook#/definitions/ImageSet/properties/index/type",keyword:"type",params:{type: "integer"}}];
return false;
}
var valid7 = _errs23 === errors;
}
else {
var valid7 = true;
}
if(valid7){
if(data6.total !== undefined){
let data9 = data6.total;
const _errs25 = errors;
if(!(((typeof data9 == "number") && (!(data9 % 1) && !isNaN(data9))) && (isFinite(data9)))){
validate36.errors = [{instancePath:instancePath+"/imageSet/total",schemaPath:"webhook#/definitions/ImageSet/properties/total/type",keyword:"type",params:{type: "integer"}}];
return false;
}
var valid7 = _errs25 === errors;
}
else {
var valid7 = true;
}
}
}
}
}
else {
validate36.errors = [{instancePath:instancePath+"/imageSet",schemaPath:"webhook#/definitions/ImageSet/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid3 = _errs18 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quoteToken !== undefined){
const _errs27 = errors;
if(typeof data.quoteToken !== "string"){
validate36.errors = [{instancePath:instancePath+"/quoteToken",schemaPath:"#/allOf/1/properties/quoteToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs27 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs29 = errors;
if(typeof data.markAsReadToken !== "string"){
validate36.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs29 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
}
else {
validate36.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs31 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing4;
if((data.type === undefined) && (missing4 = "type")){
validate36.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing4}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "image")){
validate36.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema38.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs31 === errors;
}
}
validate36.errors = vErrors;
return errors === 0;
}

const schema42 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["contentProvider","quoteToken"],"properties":{"duration":{"type":"integer","format":"int64"},"contentProvider":{"$ref":"webhook#/definitions/ContentProvider"},"quoteToken":{"type":"string"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["video"]}}}]};

function validate38(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate38.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate38.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate38.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate38.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.contentProvider === undefined) && (missing1 = "contentProvider")) || ((data.quoteToken === undefined) && (missing1 = "quoteToken"))){
validate38.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.duration !== undefined){
let data2 = data.duration;
const _errs9 = errors;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
validate38.errors = [{instancePath:instancePath+"/duration",schemaPath:"#/allOf/1/properties/duration/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs9){
if((typeof data2 == "number") && (isFinite(data2))){
if(!(formats0.validate(data2))){
validate38.errors = [{instancePath:instancePath+"/duration",schemaPath:"#/allOf/1/properties/duration/format",keyword:"format",params:{format: "int64"}}];
return false;
}
}
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.contentProvider !== undefined){
let data3 = data.contentProvider;
const _errs11 = errors;
const _errs12 = errors;
if(errors === _errs12){
if(data3 && typeof data3 == "object" && !Array.isArray(data3)){
let missing2;
if((data3.type === undefined) && (missing2 = "type")){
validate38.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data3.type !== undefined){
let data4 = data3.type;
const _errs14 = errors;
if(typeof data4 !== "string"){
validate38.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((data4 === "line") || (data4 === "external"))){
validate38.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/enum",keyword:"enum",params:{allowedValues: schema40.properties.type.enum}}];
return false;
}
var valid5 = _errs14 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data3.originalContentUrl !== undefined){
let data5 = data3.originalContentUrl;
const _errs16 = errors;
if(errors === _errs16){
if(errors === _errs16){
if(typeof data5 === "string"){
if(!(formats14(data5))){
validate38.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate38.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs16 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data3.previewImageUrl !== undefined){
let data6 = data3.previewImageUrl;
const _errs18 = errors;
if(errors === _errs18){
if(errors === _errs18){
if(typeof data6 === "string"){
if(!(formats14(data6))){
validate38.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate38.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs18 === errors;
}
else {
var valid5 = true;
}
}
}
}
}
else {
validate38.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quoteToken !== undefined){
const _errs20 = errors;
if(typeof data.quoteToken !== "string"){
validate38.errors = [{instancePath:instancePath+"/quoteToken",schemaPath:"#/allOf/1/properties/quoteToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs20 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs22 = errors;
if(typeof data.markAsReadToken !== "string"){
validate38.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs22 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
}
else {
validate38.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs24 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
validate38.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing3}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "video")){
validate38.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema42.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs24 === errors;
}
}
validate38.errors = vErrors;
return errors === 0;
}

const schema45 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["contentProvider"],"properties":{"contentProvider":{"$ref":"webhook#/definitions/ContentProvider"},"duration":{"type":"integer","format":"int64"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["audio"]}}}]};

function validate40(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate40.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate40.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate40.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate40.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.contentProvider === undefined) && (missing1 = "contentProvider")){
validate40.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.contentProvider !== undefined){
let data2 = data.contentProvider;
const _errs9 = errors;
const _errs10 = errors;
if(errors === _errs10){
if(data2 && typeof data2 == "object" && !Array.isArray(data2)){
let missing2;
if((data2.type === undefined) && (missing2 = "type")){
validate40.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data2.type !== undefined){
let data3 = data2.type;
const _errs12 = errors;
if(typeof data3 !== "string"){
validate40.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((data3 === "line") || (data3 === "external"))){
validate40.errors = [{instancePath:instancePath+"/contentProvider/type",schemaPath:"webhook#/definitions/ContentProvider/properties/type/enum",keyword:"enum",params:{allowedValues: schema40.properties.type.enum}}];
return false;
}
var valid5 = _errs12 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data2.originalContentUrl !== undefined){
let data4 = data2.originalContentUrl;
const _errs14 = errors;
if(errors === _errs14){
if(errors === _errs14){
if(typeof data4 === "string"){
if(!(formats14(data4))){
validate40.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate40.errors = [{instancePath:instancePath+"/contentProvider/originalContentUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/originalContentUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs14 === errors;
}
else {
var valid5 = true;
}
if(valid5){
if(data2.previewImageUrl !== undefined){
let data5 = data2.previewImageUrl;
const _errs16 = errors;
if(errors === _errs16){
if(errors === _errs16){
if(typeof data5 === "string"){
if(!(formats14(data5))){
validate40.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/format",keyword:"format",params:{format: "uri"}}];
return false;
}
}
else {
validate40.errors = [{instancePath:instancePath+"/contentProvider/previewImageUrl",schemaPath:"webhook#/definitions/ContentProvider/properties/previewImageUrl/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
var valid5 = _errs16 === errors;
}
else {
var valid5 = true;
}
}
}
}
}
else {
validate40.errors = [{instancePath:instancePath+"/contentProvider",schemaPath:"webhook#/definitions/ContentProvider/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.duration !== undefined){
let data6 = data.duration;
const _errs18 = errors;
if(!(((typeof data6 == "number") && (!(data6 % 1) && !isNaN(data6))) && (isFinite(data6)))){
validate40.errors = [{instancePath:instancePath+"/duration",schemaPath:"#/allOf/1/properties/duration/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs18){
if((typeof data6 == "number") && (isFinite(data6))){
if(!(formats0.validate(data6))){
validate40.errors = [{instancePath:instancePath+"/duration",schemaPath:"#/allOf/1/properties/duration/format",keyword:"format",params:{format: "int64"}}];
return false;
}
}
}
var valid3 = _errs18 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs20 = errors;
if(typeof data.markAsReadToken !== "string"){
validate40.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs20 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
else {
validate40.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs22 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
validate40.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing3}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "audio")){
validate40.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema45.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs22 === errors;
}
}
validate40.errors = vErrors;
return errors === 0;
}

const schema48 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["fileName","fileSize"],"properties":{"fileName":{"type":"string"},"fileSize":{"type":"integer"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["file"]}}}]};

function validate42(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate42.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate42.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate42.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate42.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.fileName === undefined) && (missing1 = "fileName")) || ((data.fileSize === undefined) && (missing1 = "fileSize"))){
validate42.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.fileName !== undefined){
const _errs9 = errors;
if(typeof data.fileName !== "string"){
validate42.errors = [{instancePath:instancePath+"/fileName",schemaPath:"#/allOf/1/properties/fileName/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.fileSize !== undefined){
let data3 = data.fileSize;
const _errs11 = errors;
if(!(((typeof data3 == "number") && (!(data3 % 1) && !isNaN(data3))) && (isFinite(data3)))){
validate42.errors = [{instancePath:instancePath+"/fileSize",schemaPath:"#/allOf/1/properties/fileSize/type",keyword:"type",params:{type: "integer"}}];
return false;
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs13 = errors;
if(typeof data.markAsReadToken !== "string"){
validate42.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs13 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
else {
validate42.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs15 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate42.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "file")){
validate42.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema48.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs15 === errors;
}
}
validate42.errors = vErrors;
return errors === 0;
}

const schema50 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["latitude","longitude"],"properties":{"title":{"type":"string"},"address":{"type":"string"},"latitude":{"type":"number","format":"double"},"longitude":{"type":"number","format":"double"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["location"]}}}]};
const formats30 = runtime0.fullFormats.double;

function validate44(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate44.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate44.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate44.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate44.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.latitude === undefined) && (missing1 = "latitude")) || ((data.longitude === undefined) && (missing1 = "longitude"))){
validate44.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.title !== undefined){
const _errs9 = errors;
if(typeof data.title !== "string"){
validate44.errors = [{instancePath:instancePath+"/title",schemaPath:"#/allOf/1/properties/title/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.address !== undefined){
const _errs11 = errors;
if(typeof data.address !== "string"){
validate44.errors = [{instancePath:instancePath+"/address",schemaPath:"#/allOf/1/properties/address/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.latitude !== undefined){
let data4 = data.latitude;
const _errs13 = errors;
if(errors === _errs13){
if((typeof data4 == "number") && (isFinite(data4))){
if(!(formats30.validate(data4))){
validate44.errors = [{instancePath:instancePath+"/latitude",schemaPath:"#/allOf/1/properties/latitude/format",keyword:"format",params:{format: "double"}}];
return false;
}
}
else {
validate44.errors = [{instancePath:instancePath+"/latitude",schemaPath:"#/allOf/1/properties/latitude/type",keyword:"type",params:{type: "number"}}];
return false;
}
}
var valid3 = _errs13 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.longitude !== undefined){
let data5 = data.longitude;
const _errs15 = errors;
if(errors === _errs15){
if((typeof data5 == "number") && (isFinite(data5))){
if(!(formats30.validate(data5))){
validate44.errors = [{instancePath:instancePath+"/longitude",schemaPath:"#/allOf/1/properties/longitude/format",keyword:"format",params:{format: "double"}}];
return false;
}
}
else {
validate44.errors = [{instancePath:instancePath+"/longitude",schemaPath:"#/allOf/1/properties/longitude/type",keyword:"type",params:{type: "number"}}];
return false;
}
}
var valid3 = _errs15 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs17 = errors;
if(typeof data.markAsReadToken !== "string"){
validate44.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs17 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
}
}
else {
validate44.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs19 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate44.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "location")){
validate44.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema50.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs19 === errors;
}
}
validate44.errors = vErrors;
return errors === 0;
}

const schema52 = {"allOf":[{"$ref":"webhook#/definitions/MessageContent.base"},{"type":"object","required":["packageId","stickerId","stickerResourceType","quoteToken"],"properties":{"packageId":{"type":"string"},"stickerId":{"type":"string"},"stickerResourceType":{"type":"string","enum":["STATIC","ANIMATION","SOUND","ANIMATION_SOUND","POPUP","POPUP_SOUND","CUSTOM","MESSAGE","NAME_TEXT","PER_STICKER_TEXT"]},"keywords":{"type":"array","maxItems":15,"items":{"type":"string"}},"text":{"type":"string","maxLength":100},"quoteToken":{"type":"string"},"quotedMessageId":{"type":"string"},"markAsReadToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["sticker"]}}}]};
const func2 = runtime1.default;

function validate46(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate46.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate46.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate46.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate46.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(errors === _errs7){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((((data.packageId === undefined) && (missing1 = "packageId")) || ((data.stickerId === undefined) && (missing1 = "stickerId"))) || ((data.stickerResourceType === undefined) && (missing1 = "stickerResourceType"))) || ((data.quoteToken === undefined) && (missing1 = "quoteToken"))){
validate46.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.packageId !== undefined){
const _errs9 = errors;
if(typeof data.packageId !== "string"){
validate46.errors = [{instancePath:instancePath+"/packageId",schemaPath:"#/allOf/1/properties/packageId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.stickerId !== undefined){
const _errs11 = errors;
if(typeof data.stickerId !== "string"){
validate46.errors = [{instancePath:instancePath+"/stickerId",schemaPath:"#/allOf/1/properties/stickerId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs11 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.stickerResourceType !== undefined){
let data4 = data.stickerResourceType;
const _errs13 = errors;
if(typeof data4 !== "string"){
validate46.errors = [{instancePath:instancePath+"/stickerResourceType",schemaPath:"#/allOf/1/properties/stickerResourceType/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((((((((((data4 === "STATIC") || (data4 === "ANIMATION")) || (data4 === "SOUND")) || (data4 === "ANIMATION_SOUND")) || (data4 === "POPUP")) || (data4 === "POPUP_SOUND")) || (data4 === "CUSTOM")) || (data4 === "MESSAGE")) || (data4 === "NAME_TEXT")) || (data4 === "PER_STICKER_TEXT"))){
validate46.errors = [{instancePath:instancePath+"/stickerResourceType",schemaPath:"#/allOf/1/properties/stickerResourceType/enum",keyword:"enum",params:{allowedValues: schema52.allOf[1].properties.stickerResourceType.enum}}];
return false;
}
var valid3 = _errs13 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.keywords !== undefined){
let data5 = data.keywords;
const _errs15 = errors;
if(errors === _errs15){
if(Array.isArray(data5)){
if(data5.length > 15){
validate46.errors = [{instancePath:instancePath+"/keywords",schemaPath:"#/allOf/1/properties/keywords/maxItems",keyword:"maxItems",params:{limit: 15}}];
return false;
}
else {
var valid4 = true;
const len0 = data5.length;
for(let i0=0; i0<len0; i0++){
const _errs17 = errors;
if(typeof data5[i0] !== "string"){
validate46.errors = [{instancePath:instancePath+"/keywords/" + i0,schemaPath:"#/allOf/1/properties/keywords/items/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid4 = _errs17 === errors;
if(!valid4){
break;
}
}
}
}
else {
validate46.errors = [{instancePath:instancePath+"/keywords",schemaPath:"#/allOf/1/properties/keywords/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
var valid3 = _errs15 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.text !== undefined){
let data7 = data.text;
const _errs19 = errors;
if(errors === _errs19){
if(typeof data7 === "string"){
if(func2(data7) > 100){
validate46.errors = [{instancePath:instancePath+"/text",schemaPath:"#/allOf/1/properties/text/maxLength",keyword:"maxLength",params:{limit: 100}}];
return false;
}
}
else {
validate46.errors = [{instancePath:instancePath+"/text",schemaPath:"#/allOf/1/properties/text/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
var valid3 = _errs19 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quoteToken !== undefined){
const _errs21 = errors;
if(typeof data.quoteToken !== "string"){
validate46.errors = [{instancePath:instancePath+"/quoteToken",schemaPath:"#/allOf/1/properties/quoteToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs21 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.quotedMessageId !== undefined){
const _errs23 = errors;
if(typeof data.quotedMessageId !== "string"){
validate46.errors = [{instancePath:instancePath+"/quotedMessageId",schemaPath:"#/allOf/1/properties/quotedMessageId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs23 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.markAsReadToken !== undefined){
const _errs25 = errors;
if(typeof data.markAsReadToken !== "string"){
validate46.errors = [{instancePath:instancePath+"/markAsReadToken",schemaPath:"#/allOf/1/properties/markAsReadToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs25 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
}
}
}
}
}
else {
validate46.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs27 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate46.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "sticker")){
validate46.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema52.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs27 === errors;
}
}
validate46.errors = vErrors;
return errors === 0;
}


function validate25(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.id === undefined) && (missing0 = "id"))){
validate25.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
const _errs3 = errors;
if(typeof data.type !== "string"){
validate25.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MessageContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs3 === errors;
}
else {
var valid2 = true;
}
if(valid2){
if(data.id !== undefined){
const _errs5 = errors;
if(typeof data.id !== "string"){
validate25.errors = [{instancePath:instancePath+"/id",schemaPath:"webhook#/definitions/MessageContent.base/properties/id/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid2 = _errs5 === errors;
}
else {
var valid2 = true;
}
}
}
}
else {
validate25.errors = [{instancePath,schemaPath:"webhook#/definitions/MessageContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs7 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate25.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
let data2 = data.type;
if(!(((((((data2 === "text") || (data2 === "image")) || (data2 === "video")) || (data2 === "audio")) || (data2 === "file")) || (data2 === "location")) || (data2 === "sticker"))){
validate25.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema26.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs9 = errors;
const _errs10 = errors;
let valid4 = true;
const _errs11 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("text" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs11 === errors;
errors = _errs10;
if(vErrors !== null){
if(_errs10){
vErrors.length = _errs10;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs13 = errors;
if(!(validate26(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate26.errors : vErrors.concat(validate26.errors);
errors = vErrors.length;
}
var _valid0 = _errs13 === errors;
valid4 = _valid0;
}
if(!valid4){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs9 === errors;
if(valid0){
const _errs14 = errors;
const _errs15 = errors;
let valid6 = true;
const _errs16 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("image" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs16 === errors;
errors = _errs15;
if(vErrors !== null){
if(_errs15){
vErrors.length = _errs15;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs18 = errors;
if(!(validate36(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate36.errors : vErrors.concat(validate36.errors);
errors = vErrors.length;
}
var _valid1 = _errs18 === errors;
valid6 = _valid1;
}
if(!valid6){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs14 === errors;
if(valid0){
const _errs19 = errors;
const _errs20 = errors;
let valid8 = true;
const _errs21 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing4;
if((data.type === undefined) && (missing4 = "type")){
const err6 = {};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
else {
if(data.type !== undefined){
if("video" !== data.type){
const err7 = {};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
}
}
var _valid2 = _errs21 === errors;
errors = _errs20;
if(vErrors !== null){
if(_errs20){
vErrors.length = _errs20;
}
else {
vErrors = null;
}
}
if(_valid2){
const _errs23 = errors;
if(!(validate38(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate38.errors : vErrors.concat(validate38.errors);
errors = vErrors.length;
}
var _valid2 = _errs23 === errors;
valid8 = _valid2;
}
if(!valid8){
const err8 = {instancePath,schemaPath:"#/allOf/4/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs19 === errors;
if(valid0){
const _errs24 = errors;
const _errs25 = errors;
let valid10 = true;
const _errs26 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing5;
if((data.type === undefined) && (missing5 = "type")){
const err9 = {};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
else {
if(data.type !== undefined){
if("audio" !== data.type){
const err10 = {};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
}
}
var _valid3 = _errs26 === errors;
errors = _errs25;
if(vErrors !== null){
if(_errs25){
vErrors.length = _errs25;
}
else {
vErrors = null;
}
}
if(_valid3){
const _errs28 = errors;
if(!(validate40(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate40.errors : vErrors.concat(validate40.errors);
errors = vErrors.length;
}
var _valid3 = _errs28 === errors;
valid10 = _valid3;
}
if(!valid10){
const err11 = {instancePath,schemaPath:"#/allOf/5/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs24 === errors;
if(valid0){
const _errs29 = errors;
const _errs30 = errors;
let valid12 = true;
const _errs31 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing6;
if((data.type === undefined) && (missing6 = "type")){
const err12 = {};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
else {
if(data.type !== undefined){
if("file" !== data.type){
const err13 = {};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
}
}
var _valid4 = _errs31 === errors;
errors = _errs30;
if(vErrors !== null){
if(_errs30){
vErrors.length = _errs30;
}
else {
vErrors = null;
}
}
if(_valid4){
const _errs33 = errors;
if(!(validate42(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate42.errors : vErrors.concat(validate42.errors);
errors = vErrors.length;
}
var _valid4 = _errs33 === errors;
valid12 = _valid4;
}
if(!valid12){
const err14 = {instancePath,schemaPath:"#/allOf/6/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs29 === errors;
if(valid0){
const _errs34 = errors;
const _errs35 = errors;
let valid14 = true;
const _errs36 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing7;
if((data.type === undefined) && (missing7 = "type")){
const err15 = {};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
else {
if(data.type !== undefined){
if("location" !== data.type){
const err16 = {};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
}
}
var _valid5 = _errs36 === errors;
errors = _errs35;
if(vErrors !== null){
if(_errs35){
vErrors.length = _errs35;
}
else {
vErrors = null;
}
}
if(_valid5){
const _errs38 = errors;
if(!(validate44(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate44.errors : vErrors.concat(validate44.errors);
errors = vErrors.length;
}
var _valid5 = _errs38 === errors;
valid14 = _valid5;
}
if(!valid14){
const err17 = {instancePath,schemaPath:"#/allOf/7/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs34 === errors;
if(valid0){
const _errs39 = errors;
const _errs40 = errors;
let valid16 = true;
const _errs41 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing8;
if((data.type === undefined) && (missing8 = "type")){
const err18 = {};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
else {
if(data.type !== undefined){
if("sticker" !== data.type){
const err19 = {};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
}
}
var _valid6 = _errs41 === errors;
errors = _errs40;
if(vErrors !== null){
if(_errs40){
vErrors.length = _errs40;
}
else {
vErrors = null;
}
}
if(_valid6){
const _errs43 = errors;
if(!(validate46(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate46.errors : vErrors.concat(validate46.errors);
errors = vErrors.length;
}
var _valid6 = _errs43 === errors;
valid16 = _valid6;
}
if(!valid16){
const err20 = {instancePath,schemaPath:"#/allOf/8/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
validate25.errors = vErrors;
return false;
}
var valid0 = _errs39 === errors;
}
}
}
}
}
}
}
}
validate25.errors = vErrors;
return errors === 0;
}


function validate23(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate23.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"}}];
return false;
}
const _errs1 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs2 = errors;
if(errors === _errs2){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.message === undefined) && (missing0 = "message"))){
validate23.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs4 = errors;
if(typeof data.replyToken !== "string"){
validate23.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs4 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.message !== undefined){
const _errs6 = errors;
if(!(validate25(data.message, {instancePath:instancePath+"/message",parentData:data,parentDataProperty:"message",rootData}))){
vErrors = vErrors === null ? validate25.errors : vErrors.concat(validate25.errors);
errors = vErrors.length;
}
var valid1 = _errs6 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate23.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs2 === errors;
if(valid0){
const _errs7 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate23.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "message")){
validate23.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema25.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs7 === errors;
}
}
validate23.errors = vErrors;
return errors === 0;
}

const schema54 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["unsend"],"properties":{"unsend":{"$ref":"webhook#/definitions/UnsendDetail"}}},{"required":["type"],"properties":{"type":{"enum":["unsend"]}}}]};
const schema55 = {"required":["messageId"],"type":"object","properties":{"messageId":{"type":"string"}}};

function validate50(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.unsend === undefined) && (missing0 = "unsend")){
validate50.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.unsend !== undefined){
let data0 = data.unsend;
const _errs4 = errors;
if(errors === _errs4){
if(data0 && typeof data0 == "object" && !Array.isArray(data0)){
let missing1;
if((data0.messageId === undefined) && (missing1 = "messageId")){
validate50.errors = [{instancePath:instancePath+"/unsend",schemaPath:"webhook#/definitions/UnsendDetail/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data0.messageId !== undefined){
if(typeof data0.messageId !== "string"){
validate50.errors = [{instancePath:instancePath+"/unsend/messageId",schemaPath:"webhook#/definitions/UnsendDetail/properties/messageId/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate50.errors = [{instancePath:instancePath+"/unsend",schemaPath:"webhook#/definitions/UnsendDetail/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
}
}
}
else {
validate50.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs8 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate50.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "unsend")){
validate50.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema54.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs8 === errors;
}
}
validate50.errors = vErrors;
return errors === 0;
}

const schema56 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken","follow"],"properties":{"replyToken":{"type":"string"},"follow":{"$ref":"webhook#/definitions/FollowDetail"}}},{"required":["type"],"properties":{"type":{"enum":["follow"]}}}]};
const schema57 = {"type":"object","required":["isUnblocked"],"properties":{"isUnblocked":{"type":"boolean"}}};

function validate53(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.replyToken === undefined) && (missing0 = "replyToken")) || ((data.follow === undefined) && (missing0 = "follow"))){
validate53.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate53.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.follow !== undefined){
let data1 = data.follow;
const _errs5 = errors;
const _errs6 = errors;
if(errors === _errs6){
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
let missing1;
if((data1.isUnblocked === undefined) && (missing1 = "isUnblocked")){
validate53.errors = [{instancePath:instancePath+"/follow",schemaPath:"webhook#/definitions/FollowDetail/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data1.isUnblocked !== undefined){
if(typeof data1.isUnblocked !== "boolean"){
validate53.errors = [{instancePath:instancePath+"/follow/isUnblocked",schemaPath:"webhook#/definitions/FollowDetail/properties/isUnblocked/type",keyword:"type",params:{type: "boolean"}}];
return false;
}
}
}
}
else {
validate53.errors = [{instancePath:instancePath+"/follow",schemaPath:"webhook#/definitions/FollowDetail/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate53.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs10 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate53.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "follow")){
validate53.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema56.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs10 === errors;
}
}
validate53.errors = vErrors;
return errors === 0;
}

const schema58 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["unfollow"]}}}]};

function validate56(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate56.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate56.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "unfollow")){
validate56.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema58.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs3 === errors;
}
}
validate56.errors = vErrors;
return errors === 0;
}

const schema59 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken"],"properties":{"replyToken":{"type":"string"}}},{"required":["type"],"properties":{"type":{"enum":["join"]}}}]};

function validate59(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.replyToken === undefined) && (missing0 = "replyToken")){
validate59.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
if(typeof data.replyToken !== "string"){
validate59.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate59.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs5 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate59.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "join")){
validate59.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema59.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs5 === errors;
}
}
validate59.errors = vErrors;
return errors === 0;
}

const schema60 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["leave"]}}}]};

function validate62(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate62.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate62.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "leave")){
validate62.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema60.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs3 === errors;
}
}
validate62.errors = vErrors;
return errors === 0;
}

const schema61 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken","joined"],"properties":{"replyToken":{"type":"string"},"joined":{"$ref":"webhook#/definitions/JoinedMembers"}}},{"required":["type"],"properties":{"type":{"enum":["memberJoined"]}}}]};
const schema62 = {"required":["members"],"type":"object","properties":{"members":{"type":"array","items":{"$ref":"webhook#/definitions/UserSource"}}}};

function validate67(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(errors === 0){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.members === undefined) && (missing0 = "members")){
validate67.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.members !== undefined){
let data0 = data.members;
const _errs1 = errors;
if(errors === _errs1){
if(Array.isArray(data0)){
var valid1 = true;
const len0 = data0.length;
for(let i0=0; i0<len0; i0++){
const _errs3 = errors;
if(!(validate15(data0[i0], {instancePath:instancePath+"/members/" + i0,parentData:data0,parentDataProperty:i0,rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
var valid1 = _errs3 === errors;
if(!valid1){
break;
}
}
}
else {
validate67.errors = [{instancePath:instancePath+"/members",schemaPath:"#/properties/members/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
}
}
}
else {
validate67.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
validate67.errors = vErrors;
return errors === 0;
}


function validate65(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.replyToken === undefined) && (missing0 = "replyToken")) || ((data.joined === undefined) && (missing0 = "joined"))){
validate65.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate65.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.joined !== undefined){
const _errs5 = errors;
if(!(validate67(data.joined, {instancePath:instancePath+"/joined",parentData:data,parentDataProperty:"joined",rootData}))){
vErrors = vErrors === null ? validate67.errors : vErrors.concat(validate67.errors);
errors = vErrors.length;
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate65.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs6 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate65.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "memberJoined")){
validate65.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema61.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs6 === errors;
}
}
validate65.errors = vErrors;
return errors === 0;
}

const schema63 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["left"],"properties":{"left":{"$ref":"webhook#/definitions/LeftMembers"}}},{"required":["type"],"properties":{"type":{"enum":["memberLeft"]}}}]};
const schema64 = {"required":["members"],"type":"object","properties":{"members":{"type":"array","items":{"$ref":"webhook#/definitions/UserSource"}}}};

function validate73(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(errors === 0){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.members === undefined) && (missing0 = "members")){
validate73.errors = [{instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.members !== undefined){
let data0 = data.members;
const _errs1 = errors;
if(errors === _errs1){
if(Array.isArray(data0)){
var valid1 = true;
const len0 = data0.length;
for(let i0=0; i0<len0; i0++){
const _errs3 = errors;
if(!(validate15(data0[i0], {instancePath:instancePath+"/members/" + i0,parentData:data0,parentDataProperty:i0,rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
var valid1 = _errs3 === errors;
if(!valid1){
break;
}
}
}
else {
validate73.errors = [{instancePath:instancePath+"/members",schemaPath:"#/properties/members/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
}
}
}
else {
validate73.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
validate73.errors = vErrors;
return errors === 0;
}


function validate71(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.left === undefined) && (missing0 = "left")){
validate71.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.left !== undefined){
if(!(validate73(data.left, {instancePath:instancePath+"/left",parentData:data,parentDataProperty:"left",rootData}))){
vErrors = vErrors === null ? validate73.errors : vErrors.concat(validate73.errors);
errors = vErrors.length;
}
}
}
}
else {
validate71.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs4 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate71.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "memberLeft")){
validate71.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema63.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs4 === errors;
}
}
validate71.errors = vErrors;
return errors === 0;
}

const schema65 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["postback"],"properties":{"replyToken":{"type":"string"},"postback":{"$ref":"webhook#/definitions/PostbackContent"}}},{"required":["type"],"properties":{"type":{"enum":["postback"]}}}]};
const schema66 = {"type":"object","required":["data"],"properties":{"data":{"type":"string"},"params":{"type":"object","additionalProperties":{"type":"string"}}}};

function validate77(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.postback === undefined) && (missing0 = "postback")){
validate77.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate77.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.postback !== undefined){
let data1 = data.postback;
const _errs5 = errors;
const _errs6 = errors;
if(errors === _errs6){
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
let missing1;
if((data1.data === undefined) && (missing1 = "data")){
validate77.errors = [{instancePath:instancePath+"/postback",schemaPath:"webhook#/definitions/PostbackContent/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data1.data !== undefined){
const _errs8 = errors;
if(typeof data1.data !== "string"){
validate77.errors = [{instancePath:instancePath+"/postback/data",schemaPath:"webhook#/definitions/PostbackContent/properties/data/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs8 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data1.params !== undefined){
let data3 = data1.params;
const _errs10 = errors;
if(errors === _errs10){
if(data3 && typeof data3 == "object" && !Array.isArray(data3)){
for(const key0 in data3){
const _errs13 = errors;
if(typeof data3[key0] !== "string"){
validate77.errors = [{instancePath:instancePath+"/postback/params/" + key0.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"webhook#/definitions/PostbackContent/properties/params/additionalProperties/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid4 = _errs13 === errors;
if(!valid4){
break;
}
}
}
else {
validate77.errors = [{instancePath:instancePath+"/postback/params",schemaPath:"webhook#/definitions/PostbackContent/properties/params/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid3 = _errs10 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate77.errors = [{instancePath:instancePath+"/postback",schemaPath:"webhook#/definitions/PostbackContent/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate77.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs15 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate77.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "postback")){
validate77.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema65.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs15 === errors;
}
}
validate77.errors = vErrors;
return errors === 0;
}

const schema67 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken","videoPlayComplete"],"properties":{"replyToken":{"type":"string"},"videoPlayComplete":{"$ref":"webhook#/definitions/VideoPlayComplete"}}},{"required":["type"],"properties":{"type":{"enum":["videoPlayComplete"]}}}]};
const schema68 = {"required":["trackingId"],"type":"object","properties":{"trackingId":{"type":"string"}}};

function validate80(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.replyToken === undefined) && (missing0 = "replyToken")) || ((data.videoPlayComplete === undefined) && (missing0 = "videoPlayComplete"))){
validate80.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate80.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.videoPlayComplete !== undefined){
let data1 = data.videoPlayComplete;
const _errs5 = errors;
const _errs6 = errors;
if(errors === _errs6){
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
let missing1;
if((data1.trackingId === undefined) && (missing1 = "trackingId")){
validate80.errors = [{instancePath:instancePath+"/videoPlayComplete",schemaPath:"webhook#/definitions/VideoPlayComplete/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data1.trackingId !== undefined){
if(typeof data1.trackingId !== "string"){
validate80.errors = [{instancePath:instancePath+"/videoPlayComplete/trackingId",schemaPath:"webhook#/definitions/VideoPlayComplete/properties/trackingId/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate80.errors = [{instancePath:instancePath+"/videoPlayComplete",schemaPath:"webhook#/definitions/VideoPlayComplete/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate80.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs10 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate80.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "videoPlayComplete")){
validate80.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema67.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs10 === errors;
}
}
validate80.errors = vErrors;
return errors === 0;
}

const schema69 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken","beacon"],"properties":{"replyToken":{"type":"string"},"beacon":{"$ref":"webhook#/definitions/BeaconContent"}}},{"required":["type"],"properties":{"type":{"enum":["beacon"]}}}]};
const schema70 = {"required":["hwid","type"],"type":"object","properties":{"hwid":{"type":"string"},"type":{"type":"string","enum":["enter","banner","stay"]},"dm":{"type":"string"}}};

function validate83(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.replyToken === undefined) && (missing0 = "replyToken")) || ((data.beacon === undefined) && (missing0 = "beacon"))){
validate83.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate83.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.beacon !== undefined){
let data1 = data.beacon;
const _errs5 = errors;
const _errs6 = errors;
if(errors === _errs6){
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
let missing1;
if(((data1.hwid === undefined) && (missing1 = "hwid")) || ((data1.type === undefined) && (missing1 = "type"))){
validate83.errors = [{instancePath:instancePath+"/beacon",schemaPath:"webhook#/definitions/BeaconContent/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data1.hwid !== undefined){
const _errs8 = errors;
if(typeof data1.hwid !== "string"){
validate83.errors = [{instancePath:instancePath+"/beacon/hwid",schemaPath:"webhook#/definitions/BeaconContent/properties/hwid/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs8 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data1.type !== undefined){
let data3 = data1.type;
const _errs10 = errors;
if(typeof data3 !== "string"){
validate83.errors = [{instancePath:instancePath+"/beacon/type",schemaPath:"webhook#/definitions/BeaconContent/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!(((data3 === "enter") || (data3 === "banner")) || (data3 === "stay"))){
validate83.errors = [{instancePath:instancePath+"/beacon/type",schemaPath:"webhook#/definitions/BeaconContent/properties/type/enum",keyword:"enum",params:{allowedValues: schema70.properties.type.enum}}];
return false;
}
var valid3 = _errs10 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data1.dm !== undefined){
const _errs12 = errors;
if(typeof data1.dm !== "string"){
validate83.errors = [{instancePath:instancePath+"/beacon/dm",schemaPath:"webhook#/definitions/BeaconContent/properties/dm/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs12 === errors;
}
else {
var valid3 = true;
}
}
}
}
}
else {
validate83.errors = [{instancePath:instancePath+"/beacon",schemaPath:"webhook#/definitions/BeaconContent/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate83.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs14 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate83.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "beacon")){
validate83.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema69.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs14 === errors;
}
}
validate83.errors = vErrors;
return errors === 0;
}

const schema71 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["link"],"properties":{"replyToken":{"type":"string"},"link":{"$ref":"webhook#/definitions/LinkContent"}}},{"required":["type"],"properties":{"type":{"enum":["accountLink"]}}}]};
const schema72 = {"required":["result","nonce"],"type":"object","properties":{"result":{"type":"string","enum":["ok","failed"]},"nonce":{"type":"string"}}};

function validate86(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.link === undefined) && (missing0 = "link")){
validate86.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate86.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.link !== undefined){
let data1 = data.link;
const _errs5 = errors;
const _errs6 = errors;
if(errors === _errs6){
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
let missing1;
if(((data1.result === undefined) && (missing1 = "result")) || ((data1.nonce === undefined) && (missing1 = "nonce"))){
validate86.errors = [{instancePath:instancePath+"/link",schemaPath:"webhook#/definitions/LinkContent/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data1.result !== undefined){
let data2 = data1.result;
const _errs8 = errors;
if(typeof data2 !== "string"){
validate86.errors = [{instancePath:instancePath+"/link/result",schemaPath:"webhook#/definitions/LinkContent/properties/result/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!((data2 === "ok") || (data2 === "failed"))){
validate86.errors = [{instancePath:instancePath+"/link/result",schemaPath:"webhook#/definitions/LinkContent/properties/result/enum",keyword:"enum",params:{allowedValues: schema72.properties.result.enum}}];
return false;
}
var valid3 = _errs8 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data1.nonce !== undefined){
const _errs10 = errors;
if(typeof data1.nonce !== "string"){
validate86.errors = [{instancePath:instancePath+"/link/nonce",schemaPath:"webhook#/definitions/LinkContent/properties/nonce/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs10 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate86.errors = [{instancePath:instancePath+"/link",schemaPath:"webhook#/definitions/LinkContent/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate86.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs12 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate86.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "accountLink")){
validate86.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema71.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs12 === errors;
}
}
validate86.errors = vErrors;
return errors === 0;
}

const schema73 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["replyToken","membership"],"properties":{"replyToken":{"type":"string"},"membership":{"$ref":"webhook#/definitions/MembershipContent"}}},{"required":["type"],"properties":{"type":{"enum":["membership"]}}}]};
const schema74 = {"allOf":[{"$ref":"webhook#/definitions/MembershipContent.base"},{"required":["type"],"properties":{"type":{"enum":["joined","left","renewed"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"joined"}}},"then":{"$ref":"webhook#/definitions/JoinedMembershipContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"left"}}},"then":{"$ref":"webhook#/definitions/LeftMembershipContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"renewed"}}},"then":{"$ref":"webhook#/definitions/RenewedMembershipContent"}}]};
const schema75 = {"required":["type","membershipId"],"type":"object","properties":{"type":{"type":"string"}}};
const schema76 = {"allOf":[{"$ref":"webhook#/definitions/MembershipContent.base"},{"type":"object","required":["membershipId"],"properties":{"membershipId":{"type":"integer"}}},{"required":["type"],"properties":{"type":{"enum":["joined"]}}}]};

function validate92(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.membershipId === undefined) && (missing0 = "membershipId"))){
validate92.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate92.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MembershipContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate92.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.membershipId === undefined) && (missing1 = "membershipId")){
validate92.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.membershipId !== undefined){
let data1 = data.membershipId;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate92.errors = [{instancePath:instancePath+"/membershipId",schemaPath:"#/allOf/1/properties/membershipId/type",keyword:"type",params:{type: "integer"}}];
return false;
}
}
}
}
else {
validate92.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate92.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "joined")){
validate92.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema76.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs9 === errors;
}
}
validate92.errors = vErrors;
return errors === 0;
}

const schema78 = {"allOf":[{"$ref":"webhook#/definitions/MembershipContent.base"},{"type":"object","required":["membershipId"],"properties":{"membershipId":{"type":"integer"}}},{"required":["type"],"properties":{"type":{"enum":["left"]}}}]};

function validate94(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.membershipId === undefined) && (missing0 = "membershipId"))){
validate94.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate94.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MembershipContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate94.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.membershipId === undefined) && (missing1 = "membershipId")){
validate94.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.membershipId !== undefined){
let data1 = data.membershipId;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate94.errors = [{instancePath:instancePath+"/membershipId",schemaPath:"#/allOf/1/properties/membershipId/type",keyword:"type",params:{type: "integer"}}];
return false;
}
}
}
}
else {
validate94.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate94.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "left")){
validate94.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema78.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs9 === errors;
}
}
validate94.errors = vErrors;
return errors === 0;
}

const schema80 = {"allOf":[{"$ref":"webhook#/definitions/MembershipContent.base"},{"type":"object","required":["membershipId"],"properties":{"membershipId":{"type":"integer"}}},{"required":["type"],"properties":{"type":{"enum":["renewed"]}}}]};

function validate96(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.membershipId === undefined) && (missing0 = "membershipId"))){
validate96.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate96.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MembershipContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate96.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.membershipId === undefined) && (missing1 = "membershipId")){
validate96.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.membershipId !== undefined){
let data1 = data.membershipId;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate96.errors = [{instancePath:instancePath+"/membershipId",schemaPath:"#/allOf/1/properties/membershipId/type",keyword:"type",params:{type: "integer"}}];
return false;
}
}
}
}
else {
validate96.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate96.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "renewed")){
validate96.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema80.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs9 === errors;
}
}
validate96.errors = vErrors;
return errors === 0;
}


function validate91(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.type === undefined) && (missing0 = "type")) || ((data.membershipId === undefined) && (missing0 = "membershipId"))){
validate91.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate91.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/MembershipContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate91.errors = [{instancePath,schemaPath:"webhook#/definitions/MembershipContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate91.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
let data1 = data.type;
if(!(((data1 === "joined") || (data1 === "left")) || (data1 === "renewed"))){
validate91.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema74.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs7 = errors;
const _errs8 = errors;
let valid4 = true;
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("joined" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs9 === errors;
errors = _errs8;
if(vErrors !== null){
if(_errs8){
vErrors.length = _errs8;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs11 = errors;
if(!(validate92(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate92.errors : vErrors.concat(validate92.errors);
errors = vErrors.length;
}
var _valid0 = _errs11 === errors;
valid4 = _valid0;
}
if(!valid4){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate91.errors = vErrors;
return false;
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs12 = errors;
const _errs13 = errors;
let valid6 = true;
const _errs14 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("left" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs14 === errors;
errors = _errs13;
if(vErrors !== null){
if(_errs13){
vErrors.length = _errs13;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs16 = errors;
if(!(validate94(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate94.errors : vErrors.concat(validate94.errors);
errors = vErrors.length;
}
var _valid1 = _errs16 === errors;
valid6 = _valid1;
}
if(!valid6){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate91.errors = vErrors;
return false;
}
var valid0 = _errs12 === errors;
if(valid0){
const _errs17 = errors;
const _errs18 = errors;
let valid8 = true;
const _errs19 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing4;
if((data.type === undefined) && (missing4 = "type")){
const err6 = {};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
else {
if(data.type !== undefined){
if("renewed" !== data.type){
const err7 = {};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
}
}
var _valid2 = _errs19 === errors;
errors = _errs18;
if(vErrors !== null){
if(_errs18){
vErrors.length = _errs18;
}
else {
vErrors = null;
}
}
if(_valid2){
const _errs21 = errors;
if(!(validate96(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate96.errors : vErrors.concat(validate96.errors);
errors = vErrors.length;
}
var _valid2 = _errs21 === errors;
valid8 = _valid2;
}
if(!valid8){
const err8 = {instancePath,schemaPath:"#/allOf/4/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
validate91.errors = vErrors;
return false;
}
var valid0 = _errs17 === errors;
}
}
}
}
validate91.errors = vErrors;
return errors === 0;
}


function validate89(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if(((data.replyToken === undefined) && (missing0 = "replyToken")) || ((data.membership === undefined) && (missing0 = "membership"))){
validate89.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.replyToken !== undefined){
const _errs3 = errors;
if(typeof data.replyToken !== "string"){
validate89.errors = [{instancePath:instancePath+"/replyToken",schemaPath:"#/allOf/1/properties/replyToken/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid1 = _errs3 === errors;
}
else {
var valid1 = true;
}
if(valid1){
if(data.membership !== undefined){
const _errs5 = errors;
if(!(validate91(data.membership, {instancePath:instancePath+"/membership",parentData:data,parentDataProperty:"membership",rootData}))){
vErrors = vErrors === null ? validate91.errors : vErrors.concat(validate91.errors);
errors = vErrors.length;
}
var valid1 = _errs5 === errors;
}
else {
var valid1 = true;
}
}
}
}
else {
validate89.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs6 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate89.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "membership")){
validate89.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema73.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs6 === errors;
}
}
validate89.errors = vErrors;
return errors === 0;
}

const schema82 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["module"],"properties":{"module":{"$ref":"webhook#/definitions/ModuleContent"}}},{"required":["type"],"properties":{"type":{"enum":["module"]}}}]};
const schema83 = {"allOf":[{"$ref":"webhook#/definitions/ModuleContent.base"},{"required":["type"],"properties":{"type":{"enum":["attached","detached"]}}},{"if":{"required":["type"],"properties":{"type":{"const":"attached"}}},"then":{"$ref":"webhook#/definitions/AttachedModuleContent"}},{"if":{"required":["type"],"properties":{"type":{"const":"detached"}}},"then":{"$ref":"webhook#/definitions/DetachedModuleContent"}}]};
const schema84 = {"type":"object","required":["type"],"properties":{"type":{"type":"string"}}};
const schema85 = {"allOf":[{"$ref":"webhook#/definitions/ModuleContent.base"},{"type":"object","required":["botId","scopes"],"properties":{"botId":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}}}},{"required":["type"],"properties":{"type":{"enum":["attached"]}}}]};

function validate103(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate103.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate103.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/ModuleContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate103.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.botId === undefined) && (missing1 = "botId")) || ((data.scopes === undefined) && (missing1 = "scopes"))){
validate103.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.botId !== undefined){
const _errs7 = errors;
if(typeof data.botId !== "string"){
validate103.errors = [{instancePath:instancePath+"/botId",schemaPath:"#/allOf/1/properties/botId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs7 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.scopes !== undefined){
let data2 = data.scopes;
const _errs9 = errors;
if(errors === _errs9){
if(Array.isArray(data2)){
var valid4 = true;
const len0 = data2.length;
for(let i0=0; i0<len0; i0++){
const _errs11 = errors;
if(typeof data2[i0] !== "string"){
validate103.errors = [{instancePath:instancePath+"/scopes/" + i0,schemaPath:"#/allOf/1/properties/scopes/items/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid4 = _errs11 === errors;
if(!valid4){
break;
}
}
}
else {
validate103.errors = [{instancePath:instancePath+"/scopes",schemaPath:"#/allOf/1/properties/scopes/type",keyword:"type",params:{type: "array"}}];
return false;
}
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate103.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs13 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate103.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "attached")){
validate103.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema85.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs13 === errors;
}
}
validate103.errors = vErrors;
return errors === 0;
}

const schema87 = {"allOf":[{"$ref":"webhook#/definitions/ModuleContent.base"},{"type":"object","required":["botId","reason"],"properties":{"botId":{"type":"string"},"reason":{"type":"string","enum":["bot_deleted"]}}},{"required":["type"],"properties":{"type":{"enum":["detached"]}}}]};

function validate105(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate105.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate105.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/ModuleContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate105.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(errors === _errs5){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if(((data.botId === undefined) && (missing1 = "botId")) || ((data.reason === undefined) && (missing1 = "reason"))){
validate105.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.botId !== undefined){
const _errs7 = errors;
if(typeof data.botId !== "string"){
validate105.errors = [{instancePath:instancePath+"/botId",schemaPath:"#/allOf/1/properties/botId/type",keyword:"type",params:{type: "string"}}];
return false;
}
var valid3 = _errs7 === errors;
}
else {
var valid3 = true;
}
if(valid3){
if(data.reason !== undefined){
let data2 = data.reason;
const _errs9 = errors;
if(typeof data2 !== "string"){
validate105.errors = [{instancePath:instancePath+"/reason",schemaPath:"#/allOf/1/properties/reason/type",keyword:"type",params:{type: "string"}}];
return false;
}
if(!(data2 === "bot_deleted")){
validate105.errors = [{instancePath:instancePath+"/reason",schemaPath:"#/allOf/1/properties/reason/enum",keyword:"enum",params:{allowedValues: schema87.allOf[1].properties.reason.enum}}];
return false;
}
var valid3 = _errs9 === errors;
}
else {
var valid3 = true;
}
}
}
}
else {
validate105.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs11 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate105.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "detached")){
validate105.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema87.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs11 === errors;
}
}
validate105.errors = vErrors;
return errors === 0;
}


function validate102(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate102.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(typeof data.type !== "string"){
validate102.errors = [{instancePath:instancePath+"/type",schemaPath:"webhook#/definitions/ModuleContent.base/properties/type/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate102.errors = [{instancePath,schemaPath:"webhook#/definitions/ModuleContent.base/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs5 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate102.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
let data1 = data.type;
if(!((data1 === "attached") || (data1 === "detached"))){
validate102.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema83.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs5 === errors;
if(valid0){
const _errs7 = errors;
const _errs8 = errors;
let valid4 = true;
const _errs9 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("attached" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs9 === errors;
errors = _errs8;
if(vErrors !== null){
if(_errs8){
vErrors.length = _errs8;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs11 = errors;
if(!(validate103(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate103.errors : vErrors.concat(validate103.errors);
errors = vErrors.length;
}
var _valid0 = _errs11 === errors;
valid4 = _valid0;
}
if(!valid4){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate102.errors = vErrors;
return false;
}
var valid0 = _errs7 === errors;
if(valid0){
const _errs12 = errors;
const _errs13 = errors;
let valid6 = true;
const _errs14 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("detached" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs14 === errors;
errors = _errs13;
if(vErrors !== null){
if(_errs13){
vErrors.length = _errs13;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs16 = errors;
if(!(validate105(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate105.errors : vErrors.concat(validate105.errors);
errors = vErrors.length;
}
var _valid1 = _errs16 === errors;
valid6 = _valid1;
}
if(!valid6){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate102.errors = vErrors;
return false;
}
var valid0 = _errs12 === errors;
}
}
}
validate102.errors = vErrors;
return errors === 0;
}


function validate100(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.module === undefined) && (missing0 = "module")){
validate100.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.module !== undefined){
if(!(validate102(data.module, {instancePath:instancePath+"/module",parentData:data,parentDataProperty:"module",rootData}))){
vErrors = vErrors === null ? validate102.errors : vErrors.concat(validate102.errors);
errors = vErrors.length;
}
}
}
}
else {
validate100.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs4 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
validate100.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "module")){
validate100.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema82.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs4 === errors;
}
}
validate100.errors = vErrors;
return errors === 0;
}

const schema89 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["chatControl"],"properties":{"chatControl":{"$ref":"webhook#/definitions/ChatControl"}}},{"required":["type"],"properties":{"type":{"enum":["activated"]}}}]};
const schema90 = {"required":["expireAt"],"type":"object","properties":{"expireAt":{"type":"integer","format":"int64"}}};

function validate109(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.chatControl === undefined) && (missing0 = "chatControl")){
validate109.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.chatControl !== undefined){
let data0 = data.chatControl;
const _errs4 = errors;
if(errors === _errs4){
if(data0 && typeof data0 == "object" && !Array.isArray(data0)){
let missing1;
if((data0.expireAt === undefined) && (missing1 = "expireAt")){
validate109.errors = [{instancePath:instancePath+"/chatControl",schemaPath:"webhook#/definitions/ChatControl/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data0.expireAt !== undefined){
let data1 = data0.expireAt;
const _errs6 = errors;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
validate109.errors = [{instancePath:instancePath+"/chatControl/expireAt",schemaPath:"webhook#/definitions/ChatControl/properties/expireAt/type",keyword:"type",params:{type: "integer"}}];
return false;
}
if(errors === _errs6){
if((typeof data1 == "number") && (isFinite(data1))){
if(!(formats0.validate(data1))){
validate109.errors = [{instancePath:instancePath+"/chatControl/expireAt",schemaPath:"webhook#/definitions/ChatControl/properties/expireAt/format",keyword:"format",params:{format: "int64"}}];
return false;
}
}
}
}
}
}
else {
validate109.errors = [{instancePath:instancePath+"/chatControl",schemaPath:"webhook#/definitions/ChatControl/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
}
}
}
else {
validate109.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs8 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate109.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "activated")){
validate109.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema89.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs8 === errors;
}
}
validate109.errors = vErrors;
return errors === 0;
}

const schema91 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["deactivated"]}}}]};

function validate112(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate112.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate112.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "deactivated")){
validate112.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema91.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs3 === errors;
}
}
validate112.errors = vErrors;
return errors === 0;
}

const schema92 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["botSuspended"]}}}]};

function validate115(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate115.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate115.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "botSuspended")){
validate115.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema92.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs3 === errors;
}
}
validate115.errors = vErrors;
return errors === 0;
}

const schema93 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object"},{"required":["type"],"properties":{"type":{"enum":["botResumed"]}}}]};

function validate118(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(!(data && typeof data == "object" && !Array.isArray(data))){
validate118.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate118.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "botResumed")){
validate118.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema93.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs3 === errors;
}
}
validate118.errors = vErrors;
return errors === 0;
}

const schema94 = {"allOf":[{"$ref":"webhook#/definitions/Event.base"},{"type":"object","required":["delivery"],"properties":{"delivery":{"$ref":"webhook#/definitions/PnpDelivery"}}},{"required":["type"],"properties":{"type":{"enum":["delivery"]}}}]};
const schema95 = {"type":"object","required":["data"],"properties":{"data":{"type":"string"}}};

function validate121(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(errors === _errs1){
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.delivery === undefined) && (missing0 = "delivery")){
validate121.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.delivery !== undefined){
let data0 = data.delivery;
const _errs4 = errors;
if(errors === _errs4){
if(data0 && typeof data0 == "object" && !Array.isArray(data0)){
let missing1;
if((data0.data === undefined) && (missing1 = "data")){
validate121.errors = [{instancePath:instancePath+"/delivery",schemaPath:"webhook#/definitions/PnpDelivery/required",keyword:"required",params:{missingProperty: missing1}}];
return false;
}
else {
if(data0.data !== undefined){
if(typeof data0.data !== "string"){
validate121.errors = [{instancePath:instancePath+"/delivery/data",schemaPath:"webhook#/definitions/PnpDelivery/properties/data/type",keyword:"type",params:{type: "string"}}];
return false;
}
}
}
}
else {
validate121.errors = [{instancePath:instancePath+"/delivery",schemaPath:"webhook#/definitions/PnpDelivery/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
}
}
}
else {
validate121.errors = [{instancePath,schemaPath:"#/allOf/1/type",keyword:"type",params:{type: "object"}}];
return false;
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs8 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
validate121.errors = [{instancePath,schemaPath:"#/allOf/2/required",keyword:"required",params:{missingProperty: missing2}}];
return false;
}
else {
if(data.type !== undefined){
if(!(data.type === "delivery")){
validate121.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/2/properties/type/enum",keyword:"enum",params:{allowedValues: schema94.allOf[2].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs8 === errors;
}
}
validate121.errors = vErrors;
return errors === 0;
}


function validate12(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
const _errs0 = errors;
if(!(validate13(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
var valid0 = _errs0 === errors;
if(valid0){
const _errs1 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing0;
if((data.type === undefined) && (missing0 = "type")){
validate12.errors = [{instancePath,schemaPath:"#/allOf/1/required",keyword:"required",params:{missingProperty: missing0}}];
return false;
}
else {
if(data.type !== undefined){
let data0 = data.type;
if(!(((((((((((((((((((data0 === "message") || (data0 === "unsend")) || (data0 === "follow")) || (data0 === "unfollow")) || (data0 === "join")) || (data0 === "leave")) || (data0 === "memberJoined")) || (data0 === "memberLeft")) || (data0 === "postback")) || (data0 === "videoPlayComplete")) || (data0 === "beacon")) || (data0 === "accountLink")) || (data0 === "membership")) || (data0 === "module")) || (data0 === "activated")) || (data0 === "deactivated")) || (data0 === "botSuspended")) || (data0 === "botResumed")) || (data0 === "delivery"))){
validate12.errors = [{instancePath:instancePath+"/type",schemaPath:"#/allOf/1/properties/type/enum",keyword:"enum",params:{allowedValues: schema13.allOf[1].properties.type.enum}}];
return false;
}
}
}
}
var valid0 = _errs1 === errors;
if(valid0){
const _errs3 = errors;
const _errs4 = errors;
let valid2 = true;
const _errs5 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing1;
if((data.type === undefined) && (missing1 = "type")){
const err0 = {};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
else {
if(data.type !== undefined){
if("message" !== data.type){
const err1 = {};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
}
}
var _valid0 = _errs5 === errors;
errors = _errs4;
if(vErrors !== null){
if(_errs4){
vErrors.length = _errs4;
}
else {
vErrors = null;
}
}
if(_valid0){
const _errs7 = errors;
if(!(validate23(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate23.errors : vErrors.concat(validate23.errors);
errors = vErrors.length;
}
var _valid0 = _errs7 === errors;
valid2 = _valid0;
}
if(!valid2){
const err2 = {instancePath,schemaPath:"#/allOf/2/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs3 === errors;
if(valid0){
const _errs8 = errors;
const _errs9 = errors;
let valid4 = true;
const _errs10 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing2;
if((data.type === undefined) && (missing2 = "type")){
const err3 = {};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
else {
if(data.type !== undefined){
if("unsend" !== data.type){
const err4 = {};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
}
var _valid1 = _errs10 === errors;
errors = _errs9;
if(vErrors !== null){
if(_errs9){
vErrors.length = _errs9;
}
else {
vErrors = null;
}
}
if(_valid1){
const _errs12 = errors;
if(!(validate50(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate50.errors : vErrors.concat(validate50.errors);
errors = vErrors.length;
}
var _valid1 = _errs12 === errors;
valid4 = _valid1;
}
if(!valid4){
const err5 = {instancePath,schemaPath:"#/allOf/3/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs8 === errors;
if(valid0){
const _errs13 = errors;
const _errs14 = errors;
let valid6 = true;
const _errs15 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing3;
if((data.type === undefined) && (missing3 = "type")){
const err6 = {};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
else {
if(data.type !== undefined){
if("follow" !== data.type){
const err7 = {};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
}
}
var _valid2 = _errs15 === errors;
errors = _errs14;
if(vErrors !== null){
if(_errs14){
vErrors.length = _errs14;
}
else {
vErrors = null;
}
}
if(_valid2){
const _errs17 = errors;
if(!(validate53(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate53.errors : vErrors.concat(validate53.errors);
errors = vErrors.length;
}
var _valid2 = _errs17 === errors;
valid6 = _valid2;
}
if(!valid6){
const err8 = {instancePath,schemaPath:"#/allOf/4/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs13 === errors;
if(valid0){
const _errs18 = errors;
const _errs19 = errors;
let valid8 = true;
const _errs20 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing4;
if((data.type === undefined) && (missing4 = "type")){
const err9 = {};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
else {
if(data.type !== undefined){
if("unfollow" !== data.type){
const err10 = {};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
}
}
var _valid3 = _errs20 === errors;
errors = _errs19;
if(vErrors !== null){
if(_errs19){
vErrors.length = _errs19;
}
else {
vErrors = null;
}
}
if(_valid3){
const _errs22 = errors;
if(!(validate56(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate56.errors : vErrors.concat(validate56.errors);
errors = vErrors.length;
}
var _valid3 = _errs22 === errors;
valid8 = _valid3;
}
if(!valid8){
const err11 = {instancePath,schemaPath:"#/allOf/5/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs18 === errors;
if(valid0){
const _errs23 = errors;
const _errs24 = errors;
let valid10 = true;
const _errs25 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing5;
if((data.type === undefined) && (missing5 = "type")){
const err12 = {};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
else {
if(data.type !== undefined){
if("join" !== data.type){
const err13 = {};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
}
}
var _valid4 = _errs25 === errors;
errors = _errs24;
if(vErrors !== null){
if(_errs24){
vErrors.length = _errs24;
}
else {
vErrors = null;
}
}
if(_valid4){
const _errs27 = errors;
if(!(validate59(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate59.errors : vErrors.concat(validate59.errors);
errors = vErrors.length;
}
var _valid4 = _errs27 === errors;
valid10 = _valid4;
}
if(!valid10){
const err14 = {instancePath,schemaPath:"#/allOf/6/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs23 === errors;
if(valid0){
const _errs28 = errors;
const _errs29 = errors;
let valid12 = true;
const _errs30 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing6;
if((data.type === undefined) && (missing6 = "type")){
const err15 = {};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
else {
if(data.type !== undefined){
if("leave" !== data.type){
const err16 = {};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
}
}
var _valid5 = _errs30 === errors;
errors = _errs29;
if(vErrors !== null){
if(_errs29){
vErrors.length = _errs29;
}
else {
vErrors = null;
}
}
if(_valid5){
const _errs32 = errors;
if(!(validate62(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate62.errors : vErrors.concat(validate62.errors);
errors = vErrors.length;
}
var _valid5 = _errs32 === errors;
valid12 = _valid5;
}
if(!valid12){
const err17 = {instancePath,schemaPath:"#/allOf/7/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs28 === errors;
if(valid0){
const _errs33 = errors;
const _errs34 = errors;
let valid14 = true;
const _errs35 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing7;
if((data.type === undefined) && (missing7 = "type")){
const err18 = {};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
else {
if(data.type !== undefined){
if("memberJoined" !== data.type){
const err19 = {};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
}
}
var _valid6 = _errs35 === errors;
errors = _errs34;
if(vErrors !== null){
if(_errs34){
vErrors.length = _errs34;
}
else {
vErrors = null;
}
}
if(_valid6){
const _errs37 = errors;
if(!(validate65(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate65.errors : vErrors.concat(validate65.errors);
errors = vErrors.length;
}
var _valid6 = _errs37 === errors;
valid14 = _valid6;
}
if(!valid14){
const err20 = {instancePath,schemaPath:"#/allOf/8/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs33 === errors;
if(valid0){
const _errs38 = errors;
const _errs39 = errors;
let valid16 = true;
const _errs40 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing8;
if((data.type === undefined) && (missing8 = "type")){
const err21 = {};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
else {
if(data.type !== undefined){
if("memberLeft" !== data.type){
const err22 = {};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
}
}
var _valid7 = _errs40 === errors;
errors = _errs39;
if(vErrors !== null){
if(_errs39){
vErrors.length = _errs39;
}
else {
vErrors = null;
}
}
if(_valid7){
const _errs42 = errors;
if(!(validate71(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate71.errors : vErrors.concat(validate71.errors);
errors = vErrors.length;
}
var _valid7 = _errs42 === errors;
valid16 = _valid7;
}
if(!valid16){
const err23 = {instancePath,schemaPath:"#/allOf/9/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs38 === errors;
if(valid0){
const _errs43 = errors;
const _errs44 = errors;
let valid18 = true;
const _errs45 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing9;
if((data.type === undefined) && (missing9 = "type")){
const err24 = {};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
else {
if(data.type !== undefined){
if("postback" !== data.type){
const err25 = {};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
}
}
var _valid8 = _errs45 === errors;
errors = _errs44;
if(vErrors !== null){
if(_errs44){
vErrors.length = _errs44;
}
else {
vErrors = null;
}
}
if(_valid8){
const _errs47 = errors;
if(!(validate77(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate77.errors : vErrors.concat(validate77.errors);
errors = vErrors.length;
}
var _valid8 = _errs47 === errors;
valid18 = _valid8;
}
if(!valid18){
const err26 = {instancePath,schemaPath:"#/allOf/10/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs43 === errors;
if(valid0){
const _errs48 = errors;
const _errs49 = errors;
let valid20 = true;
const _errs50 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing10;
if((data.type === undefined) && (missing10 = "type")){
const err27 = {};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
else {
if(data.type !== undefined){
if("videoPlayComplete" !== data.type){
const err28 = {};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
}
}
var _valid9 = _errs50 === errors;
errors = _errs49;
if(vErrors !== null){
if(_errs49){
vErrors.length = _errs49;
}
else {
vErrors = null;
}
}
if(_valid9){
const _errs52 = errors;
if(!(validate80(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate80.errors : vErrors.concat(validate80.errors);
errors = vErrors.length;
}
var _valid9 = _errs52 === errors;
valid20 = _valid9;
}
if(!valid20){
const err29 = {instancePath,schemaPath:"#/allOf/11/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs48 === errors;
if(valid0){
const _errs53 = errors;
const _errs54 = errors;
let valid22 = true;
const _errs55 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing11;
if((data.type === undefined) && (missing11 = "type")){
const err30 = {};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
else {
if(data.type !== undefined){
if("beacon" !== data.type){
const err31 = {};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
}
}
var _valid10 = _errs55 === errors;
errors = _errs54;
if(vErrors !== null){
if(_errs54){
vErrors.length = _errs54;
}
else {
vErrors = null;
}
}
if(_valid10){
const _errs57 = errors;
if(!(validate83(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate83.errors : vErrors.concat(validate83.errors);
errors = vErrors.length;
}
var _valid10 = _errs57 === errors;
valid22 = _valid10;
}
if(!valid22){
const err32 = {instancePath,schemaPath:"#/allOf/12/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs53 === errors;
if(valid0){
const _errs58 = errors;
const _errs59 = errors;
let valid24 = true;
const _errs60 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing12;
if((data.type === undefined) && (missing12 = "type")){
const err33 = {};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
else {
if(data.type !== undefined){
if("accountLink" !== data.type){
const err34 = {};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
}
}
var _valid11 = _errs60 === errors;
errors = _errs59;
if(vErrors !== null){
if(_errs59){
vErrors.length = _errs59;
}
else {
vErrors = null;
}
}
if(_valid11){
const _errs62 = errors;
if(!(validate86(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate86.errors : vErrors.concat(validate86.errors);
errors = vErrors.length;
}
var _valid11 = _errs62 === errors;
valid24 = _valid11;
}
if(!valid24){
const err35 = {instancePath,schemaPath:"#/allOf/13/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs58 === errors;
if(valid0){
const _errs63 = errors;
const _errs64 = errors;
let valid26 = true;
const _errs65 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing13;
if((data.type === undefined) && (missing13 = "type")){
const err36 = {};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
else {
if(data.type !== undefined){
if("membership" !== data.type){
const err37 = {};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
}
}
var _valid12 = _errs65 === errors;
errors = _errs64;
if(vErrors !== null){
if(_errs64){
vErrors.length = _errs64;
}
else {
vErrors = null;
}
}
if(_valid12){
const _errs67 = errors;
if(!(validate89(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate89.errors : vErrors.concat(validate89.errors);
errors = vErrors.length;
}
var _valid12 = _errs67 === errors;
valid26 = _valid12;
}
if(!valid26){
const err38 = {instancePath,schemaPath:"#/allOf/14/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs63 === errors;
if(valid0){
const _errs68 = errors;
const _errs69 = errors;
let valid28 = true;
const _errs70 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing14;
if((data.type === undefined) && (missing14 = "type")){
const err39 = {};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
else {
if(data.type !== undefined){
if("module" !== data.type){
const err40 = {};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
}
}
var _valid13 = _errs70 === errors;
errors = _errs69;
if(vErrors !== null){
if(_errs69){
vErrors.length = _errs69;
}
else {
vErrors = null;
}
}
if(_valid13){
const _errs72 = errors;
if(!(validate100(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate100.errors : vErrors.concat(validate100.errors);
errors = vErrors.length;
}
var _valid13 = _errs72 === errors;
valid28 = _valid13;
}
if(!valid28){
const err41 = {instancePath,schemaPath:"#/allOf/15/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs68 === errors;
if(valid0){
const _errs73 = errors;
const _errs74 = errors;
let valid30 = true;
const _errs75 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing15;
if((data.type === undefined) && (missing15 = "type")){
const err42 = {};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
else {
if(data.type !== undefined){
if("activated" !== data.type){
const err43 = {};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
}
}
var _valid14 = _errs75 === errors;
errors = _errs74;
if(vErrors !== null){
if(_errs74){
vErrors.length = _errs74;
}
else {
vErrors = null;
}
}
if(_valid14){
const _errs77 = errors;
if(!(validate109(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate109.errors : vErrors.concat(validate109.errors);
errors = vErrors.length;
}
var _valid14 = _errs77 === errors;
valid30 = _valid14;
}
if(!valid30){
const err44 = {instancePath,schemaPath:"#/allOf/16/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs73 === errors;
if(valid0){
const _errs78 = errors;
const _errs79 = errors;
let valid32 = true;
const _errs80 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing16;
if((data.type === undefined) && (missing16 = "type")){
const err45 = {};
if(vErrors === null){
vErrors = [err45];
}
else {
vErrors.push(err45);
}
errors++;
}
else {
if(data.type !== undefined){
if("deactivated" !== data.type){
const err46 = {};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
}
}
}
var _valid15 = _errs80 === errors;
errors = _errs79;
if(vErrors !== null){
if(_errs79){
vErrors.length = _errs79;
}
else {
vErrors = null;
}
}
if(_valid15){
const _errs82 = errors;
if(!(validate112(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate112.errors : vErrors.concat(validate112.errors);
errors = vErrors.length;
}
var _valid15 = _errs82 === errors;
valid32 = _valid15;
}
if(!valid32){
const err47 = {instancePath,schemaPath:"#/allOf/17/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs78 === errors;
if(valid0){
const _errs83 = errors;
const _errs84 = errors;
let valid34 = true;
const _errs85 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing17;
if((data.type === undefined) && (missing17 = "type")){
const err48 = {};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
else {
if(data.type !== undefined){
if("botSuspended" !== data.type){
const err49 = {};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
}
}
}
var _valid16 = _errs85 === errors;
errors = _errs84;
if(vErrors !== null){
if(_errs84){
vErrors.length = _errs84;
}
else {
vErrors = null;
}
}
if(_valid16){
const _errs87 = errors;
if(!(validate115(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate115.errors : vErrors.concat(validate115.errors);
errors = vErrors.length;
}
var _valid16 = _errs87 === errors;
valid34 = _valid16;
}
if(!valid34){
const err50 = {instancePath,schemaPath:"#/allOf/18/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err50];
}
else {
vErrors.push(err50);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs83 === errors;
if(valid0){
const _errs88 = errors;
const _errs89 = errors;
let valid36 = true;
const _errs90 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing18;
if((data.type === undefined) && (missing18 = "type")){
const err51 = {};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
else {
if(data.type !== undefined){
if("botResumed" !== data.type){
const err52 = {};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
}
}
}
var _valid17 = _errs90 === errors;
errors = _errs89;
if(vErrors !== null){
if(_errs89){
vErrors.length = _errs89;
}
else {
vErrors = null;
}
}
if(_valid17){
const _errs92 = errors;
if(!(validate118(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate118.errors : vErrors.concat(validate118.errors);
errors = vErrors.length;
}
var _valid17 = _errs92 === errors;
valid36 = _valid17;
}
if(!valid36){
const err53 = {instancePath,schemaPath:"#/allOf/19/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs88 === errors;
if(valid0){
const _errs93 = errors;
const _errs94 = errors;
let valid38 = true;
const _errs95 = errors;
if(data && typeof data == "object" && !Array.isArray(data)){
let missing19;
if((data.type === undefined) && (missing19 = "type")){
const err54 = {};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
else {
if(data.type !== undefined){
if("delivery" !== data.type){
const err55 = {};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
}
}
}
var _valid18 = _errs95 === errors;
errors = _errs94;
if(vErrors !== null){
if(_errs94){
vErrors.length = _errs94;
}
else {
vErrors = null;
}
}
if(_valid18){
const _errs97 = errors;
if(!(validate121(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate121.errors : vErrors.concat(validate121.errors);
errors = vErrors.length;
}
var _valid18 = _errs97 === errors;
valid38 = _valid18;
}
if(!valid38){
const err56 = {instancePath,schemaPath:"#/allOf/20/if",keyword:"if",params:{failingKeyword: "then"}};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
validate12.errors = vErrors;
return false;
}
var valid0 = _errs93 === errors;
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
validate12.errors = vErrors;
return errors === 0;
}


function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(!(validate12(data, {instancePath,parentData,parentDataProperty,rootData}))){
vErrors = vErrors === null ? validate12.errors : vErrors.concat(validate12.errors);
errors = vErrors.length;
}
validate10.errors = vErrors;
return errors === 0;
}

export const eventTypes = ["message","unsend","follow","unfollow","join","leave","memberJoined","memberLeft","postback","videoPlayComplete","beacon","accountLink","membership","module","activated","deactivated","botSuspended","botResumed","delivery"];
export const messageTypes = ["text","image","video","audio","file","location","sticker"];
export const sourceTypes = ["user","group","room"];
