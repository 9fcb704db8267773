-- wrk script: order-confirmation conversations (bpel-processes/order-confirmation), each
-- placeOrder then, on the same connection as soon as "placed" is answered, confirm. Run with as
-- many threads as connections (wrk -tN -cN): each thread then has one connection and its
-- requests go strictly one after the other, so a confirm leaves only once its order is placed.
-- ORDER_PREFIX (environment) makes the orderIds of one run its own: an orderId is never reused.
-- EXPIRES: the order's expiresAfter (default PT10M: no order expires during a run).
local path = os.getenv("ORDER_PATH") or "/services/OrderConfirmationService"
local prefix = os.getenv("ORDER_PREFIX") or tostring(os.time())
local expires = os.getenv("EXPIRES") or "PT10M"
local threads = {}
local counter = 0
setup = function(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

local tid, n, state = 0, 0, "place"
placed, confirmed, failed = 0, 0, 0
local shown = false
local function envelope(op, inner)
  return '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><o:' .. op
    .. ' xmlns:o="urn:moses:order-confirmation">' .. inner .. '</o:' .. op .. '></s:Body></s:Envelope>'
end
local function post(op, body)
  return wrk.format("POST", path, {
    ["Content-Type"] = "text/xml; charset=utf-8",
    ["SOAPAction"] = '"urn:moses:order-confirmation/' .. op .. '"',
    ["Host"] = wrk.host .. ":" .. wrk.port }, body)
end
init = function(args) tid = wrk.thread:get("tid") end
local function id() return prefix .. "-" .. tid .. "-" .. n end
request = function()
  if state == "place" then
    n = n + 1
    return post("placeOrder", envelope("placeOrder", "<o:orderId>" .. id() .. "</o:orderId><o:item>widget</o:item>"
      .. "<o:quantity>" .. (1 + n % 5) .. "</o:quantity><o:expiresAfter>" .. expires .. "</o:expiresAfter>"))
  end
  return post("confirm", envelope("confirm", "<o:orderId>" .. id() .. "</o:orderId>"))
end
response = function(status, headers, body)
  local ok
  if state == "place" then
    ok = status == 200 and body:find("status>placed</", 1, true) ~= nil
    if ok then placed = placed + 1; state = "confirm" end
  else
    ok = status == 200 and body:find("status>confirmed</", 1, true) ~= nil
    if ok then confirmed = confirmed + 1 end
    state = "place" -- a failed confirm abandons its order (it expires after EXPIRES)
  end
  if not ok then
    failed = failed + 1
    if not shown then shown = true; io.write("FIRST-ERROR " .. status .. " " .. body:sub(1, 400):gsub("\n", " ") .. "\n") end
  end
end
done = function(summary, latency, requests)
  local p, c, f = 0, 0, 0
  for _, t in ipairs(threads) do p = p + t:get("placed"); c = c + t:get("confirmed"); f = f + t:get("failed") end
  local secs = summary.duration / 1e6
  io.write(string.format("RESULT steps_per_s=%.1f started_per_s=%.1f completed_per_s=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.0f placed=%d confirmed=%d failed=%d non2xx=%d errors=%d seconds=%.1f\n",
    summary.requests / secs, p / secs, c / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, p, c, f, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, secs))
end
