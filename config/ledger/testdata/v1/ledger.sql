--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit (
    seq bigint NOT NULL,
    at bigint NOT NULL,
    action text NOT NULL,
    body text NOT NULL
);


--
-- Name: audit_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.counters (
    name text NOT NULL,
    value bigint NOT NULL
);


--
-- Name: meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: once_ids; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.once_ids (
    id text NOT NULL,
    send_id text NOT NULL,
    pairs text NOT NULL,
    count integer NOT NULL,
    source text NOT NULL,
    at text NOT NULL,
    profile text NOT NULL,
    operator text NOT NULL
);


--
-- Name: optouts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.optouts (
    mobile text NOT NULL,
    sender text NOT NULL,
    note text NOT NULL,
    added text NOT NULL,
    operator text NOT NULL
);


--
-- Name: send_pairs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.send_pairs (
    send_id text NOT NULL,
    records integer NOT NULL,
    digest bytea NOT NULL
);


--
-- Name: send_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.send_records (
    send_id text NOT NULL,
    seq integer NOT NULL,
    type text NOT NULL,
    body text NOT NULL
);


--
-- Name: sends; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sends (
    id text NOT NULL,
    plan_time bigint NOT NULL,
    state text NOT NULL,
    due_at bigint,
    scheduled_for bigint NOT NULL,
    held_until bigint NOT NULL,
    touched bigint NOT NULL,
    profile text NOT NULL,
    account text NOT NULL,
    host text NOT NULL,
    sender text NOT NULL,
    operator text NOT NULL,
    source text NOT NULL,
    items integer NOT NULL,
    records integer NOT NULL,
    lease_token text,
    lease_holder text DEFAULT ''::text NOT NULL,
    lease_host text DEFAULT ''::text NOT NULL,
    lease_pid integer DEFAULT 0 NOT NULL,
    lease_until bigint DEFAULT 0 NOT NULL,
    updated_seq bigint NOT NULL
);


--
-- Data for Name: audit; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (1, 1795916455532648341, 'optout_add', '{"time":"2026-11-29T01:40:55.532648341Z","operator":null,"action":"optout_add","mobile":"09121000006","note":"asked by phone","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (2, 1795916455820018342, 'optout_add', '{"time":"2026-11-29T01:40:55.820018342Z","operator":null,"action":"optout_add","mobile":"09121000007","sender":"10004346","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (3, 1795916456178933803, 'optout_add', '{"time":"2026-11-29T01:40:56.178933803Z","operator":null,"action":"optout_add","mobile":"09121000099","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (4, 1795916456562254229, 'optout_remove', '{"time":"2026-11-29T01:40:56.562254229Z","operator":null,"action":"optout_remove","mobile":"09121000099","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (5, 1795916456720709906, 'optout_import', '{"time":"2026-11-29T01:40:56.720709906Z","operator":null,"action":"optout_import","note":"the old list","counts":{"added":3,"already":0,"invalid":0,"read":3},"file":"optouts.csv","digest":"sha256:587fdf4f43fe1251c0bc3ff1ab6351a11bc15b8d81c2026fc9b7356dede5b2a0","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (6, 1795916457596285056, 'add_contact', '{"time":"2026-11-29T01:40:57.596285056Z","operator":null,"action":"add_contact","group_id":1,"id":318,"mobile":"09121000012","profile":"default"}');
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (7, 1795916459309711513, 'cancel_scheduled', '{"time":"2026-11-29T01:40:59.309711513Z","operator":null,"action":"cancel_scheduled","note":"send 20261129-014058-a0f091 scheduled for 2026-12-28 09:10 Asia/Tehran"}');


--
-- Data for Name: counters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.counters VALUES ('sends', 18);


--
-- Data for Name: meta; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.meta VALUES ('schema_version', '1');
INSERT INTO public.meta VALUES ('ledger_id', '7e62c58cc816ab1ad1453ec3');
INSERT INTO public.meta VALUES ('created', '2026-11-29T01:40:53Z');


--
-- Data for Name: once_ids; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.once_ids VALUES ('reminders-2026-01-01', '20261129-014055-6ccc7e', '5b360b342af7ba325b22d56a7c075947ca3b351cc3fa662de2d8385ce2e83ca1', 2, '--to/--message', '2026-11-29T01:40:55.163698698Z', 'default', '');


--
-- Data for Name: optouts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.optouts VALUES ('09121000006', '', 'asked by phone', '2026-11-29T01:40:55.432732579Z', '');
INSERT INTO public.optouts VALUES ('09121000007', '10004346', '', '2026-11-29T01:40:55.680852574Z', '');
INSERT INTO public.optouts VALUES ('09121000008', '', 'the old list', '2026-11-29T01:40:56.720709906Z', '');
INSERT INTO public.optouts VALUES ('09121000009', '', 'the old list', '2026-11-29T01:40:56.720709906Z', '');
INSERT INTO public.optouts VALUES ('09121000010', '', 'the old list', '2026-11-29T01:40:56.720709906Z', '');


--
-- Data for Name: send_pairs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.send_pairs VALUES ('20261129-014054-4326e5', 4, '\x000300000077772aaf584f712ea6820b6b00000000d695e0e7bd07148ba6820b6b00000000a0dfb9b12ee8028da6820b6b00000000000000');
INSERT INTO public.send_pairs VALUES ('20261129-014055-6ccc7e', 4, '\x0002000000d0ae9dbbec54032ba7820b6b0000000023d15217d8e0e41ba7820b6b000000000000');
INSERT INTO public.send_pairs VALUES ('20261129-014057-04921b', 4, '\x0001000000d40585f0f99ba0a8a9820b6b0000000000');
INSERT INTO public.send_pairs VALUES ('20261129-014058-054348', 1, '\x010100000076bda4b83cc791dea90f336b0000000001');
INSERT INTO public.send_pairs VALUES ('20261129-014058-a0f091', 2, '\x0000000000');


--
-- Data for Name: send_records; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.send_records VALUES ('20261129-014054-4326e5', 1, 'plan', '{"type":"plan","id":"20261129-014054-4326e5","time":"2026-11-29T01:40:54.610469634Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":100,"items":[{"index":0,"recipient":"09121000001","message":"سلام علی","parts":1,"line":1},{"index":1,"recipient":"09121000002","message":"Hi Sara","parts":1,"line":2},{"index":2,"recipient":"09351000003","message":"کد شما ۴۸۲۱","parts":1,"line":3}]}');
INSERT INTO public.send_records VALUES ('20261129-014054-4326e5', 2, 'intent', '{"type":"intent","time":"2026-11-29T01:40:54.635011668Z","chunk":0,"indexes":[0,1,2],"key":"smsdesk-20261129-014054-4326e5-0"}');
INSERT INTO public.send_records VALUES ('20261129-014054-4326e5', 3, 'outcome', '{"type":"outcome","time":"2026-11-29T01:40:54.641518884Z","chunk":0,"batch_id":"batch_1","results":[{"index":0,"state":"accepted","message_id":"msg_1"},{"index":1,"state":"accepted","message_id":"msg_2"},{"index":2,"state":"accepted","message_id":"msg_3"}]}');
INSERT INTO public.send_records VALUES ('20261129-014054-4326e5', 4, 'end', '{"type":"end","time":"2026-11-29T01:40:54.643214779Z"}');
INSERT INTO public.send_records VALUES ('20261129-014055-6ccc7e', 1, 'plan', '{"type":"plan","id":"20261129-014055-6ccc7e","time":"2026-11-29T01:40:55.167790354Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":100,"items":[{"index":0,"recipient":"09121000004","message":"یادآوری","parts":1,"line":1},{"index":1,"recipient":"09121000005","message":"Reminder","parts":1,"line":2}]}');
INSERT INTO public.send_records VALUES ('20261129-014055-6ccc7e', 2, 'intent', '{"type":"intent","time":"2026-11-29T01:40:55.184796102Z","chunk":0,"indexes":[0,1],"key":"smsdesk-20261129-014055-6ccc7e-0"}');
INSERT INTO public.send_records VALUES ('20261129-014055-6ccc7e', 3, 'outcome', '{"type":"outcome","time":"2026-11-29T01:40:55.19284474Z","chunk":0,"batch_id":"batch_2","results":[{"index":0,"state":"accepted","message_id":"msg_4"},{"index":1,"state":"accepted","message_id":"msg_5"}]}');
INSERT INTO public.send_records VALUES ('20261129-014055-6ccc7e', 4, 'end', '{"type":"end","time":"2026-11-29T01:40:55.195023661Z"}');
INSERT INTO public.send_records VALUES ('20261129-014057-04921b', 1, 'plan', '{"type":"plan","id":"20261129-014057-04921b","time":"2026-11-29T01:40:57.275601361Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":100,"items":[{"index":0,"recipient":"09121000006","message":"left out","parts":1,"line":1,"opted_out":true},{"index":1,"recipient":"09121000011","message":"sent","parts":1,"line":2}]}');
INSERT INTO public.send_records VALUES ('20261129-014057-04921b', 2, 'intent', '{"type":"intent","time":"2026-11-29T01:40:57.286313408Z","chunk":0,"indexes":[1],"key":"smsdesk-20261129-014057-04921b-0"}');
INSERT INTO public.send_records VALUES ('20261129-014057-04921b', 3, 'outcome', '{"type":"outcome","time":"2026-11-29T01:40:57.291411062Z","chunk":0,"batch_id":"batch_3","results":[{"index":1,"state":"accepted","message_id":"msg_6"}]}');
INSERT INTO public.send_records VALUES ('20261129-014057-04921b', 4, 'end', '{"type":"end","time":"2026-11-29T01:40:57.293152343Z"}');
INSERT INTO public.send_records VALUES ('20261129-014058-054348', 1, 'plan', '{"type":"plan","id":"20261129-014058-054348","time":"2026-11-29T01:40:58.296743625Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":100,"scheduled_for":"2026-12-29T01:40:57Z","items":[{"index":0,"recipient":"09121000013","message":"later","parts":1,"line":1}]}');
INSERT INTO public.send_records VALUES ('20261129-014058-a0f091', 1, 'plan', '{"type":"plan","id":"20261129-014058-a0f091","time":"2026-11-29T01:40:58.880737791Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":100,"scheduled_for":"2026-12-28T05:40:58Z","items":[{"index":0,"recipient":"09121000014","message":"never","parts":1,"line":1}]}');
INSERT INTO public.send_records VALUES ('20261129-014058-a0f091', 2, 'cancel', '{"type":"cancel","time":"2026-11-29T01:40:59.296250324Z","cause":"cancelled"}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 1, 'plan', '{"type":"plan","id":"20261129-014100-f92a1d","time":"2026-11-29T01:41:00.388712139Z","profile":"default","sender":"3000505","source":"--to/--message","base_url":"http://127.0.0.1:21302/api/v1","account":"f87c5f4f808a988edb181eb5","chunk_size":1,"items":[{"index":0,"recipient":"09121000015","message":"a","parts":1,"line":1},{"index":1,"recipient":"09121000016","message":"b","parts":1,"line":2},{"index":2,"recipient":"09121000017","message":"c","parts":1,"line":3},{"index":3,"recipient":"09121000018","message":"d","parts":1,"line":4}]}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 2, 'intent', '{"type":"intent","time":"2026-11-29T01:41:00.407072465Z","chunk":0,"indexes":[0],"key":"smsdesk-20261129-014100-f92a1d-0"}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 3, 'outcome', '{"type":"outcome","time":"2026-11-29T01:41:00.412715122Z","chunk":0,"batch_id":"batch_4","results":[{"index":0,"state":"accepted","message_id":"msg_7"}]}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 4, 'intent', '{"type":"intent","time":"2026-11-29T01:41:00.416895176Z","chunk":1,"indexes":[1],"key":"smsdesk-20261129-014100-f92a1d-1"}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 5, 'outcome', '{"type":"outcome","time":"2026-11-29T01:41:00.420239646Z","chunk":1,"error":"outcome unknown: POST /sms/send-pair: the connection was closed before the answer came (outcome unknown: it may have reached the service; check before sending again)","results":[{"index":1,"state":"unknown","error":"outcome unknown: POST /sms/send-pair: the connection was closed before the answer came (outcome unknown: it may have reached the service; check before sending again)"}]}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 6, 'intent', '{"type":"intent","time":"2026-11-29T01:41:00.424259838Z","chunk":2,"indexes":[2],"key":"smsdesk-20261129-014100-f92a1d-2"}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 7, 'outcome', '{"type":"outcome","time":"2026-11-29T01:41:00.43506424Z","chunk":2,"batch_id":"batch_6","results":[{"index":2,"state":"accepted","message_id":"msg_9"}]}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 8, 'intent', '{"type":"intent","time":"2026-11-29T01:41:00.437931716Z","chunk":3,"indexes":[3],"key":"smsdesk-20261129-014100-f92a1d-3"}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 9, 'outcome', '{"type":"outcome","time":"2026-11-29T01:41:00.441090654Z","chunk":3,"error":"outcome unknown: POST /sms/send-pair: the connection was closed before the answer came (outcome unknown: it may have reached the service; check before sending again)","results":[{"index":3,"state":"unknown","error":"outcome unknown: POST /sms/send-pair: the connection was closed before the answer came (outcome unknown: it may have reached the service; check before sending again)"}]}');
INSERT INTO public.send_records VALUES ('20261129-014100-f92a1d', 10, 'end', '{"type":"end","time":"2026-11-29T01:41:00.442887631Z"}');


--
-- Data for Name: sends; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sends VALUES ('20261129-014054-4326e5', 1795916454610469634, 'ended', NULL, 0, 0, 1795916454643214779, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 3, 4, NULL, '', '', 0, 0, 2);
INSERT INTO public.sends VALUES ('20261129-014055-6ccc7e', 1795916455167790354, 'ended', NULL, 0, 0, 1795916455195023661, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 2, 4, NULL, '', '', 0, 0, 5);
INSERT INTO public.sends VALUES ('20261129-014057-04921b', 1795916457275601361, 'ended', NULL, 0, 0, 1795916457293152343, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 2, 4, NULL, '', '', 0, 0, 8);
INSERT INTO public.sends VALUES ('20261129-014058-054348', 1795916458296743625, 'waiting', 1798508457000000000, 1798508457000000000, 0, 1798508457000000000, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 1, 1, NULL, '', '', 0, 0, 10);
INSERT INTO public.sends VALUES ('20261129-014058-a0f091', 1795916458880737791, 'cancelled', NULL, 1798436458000000000, 0, 1798436458000000000, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 1, 2, NULL, '', '', 0, 0, 14);
INSERT INTO public.sends VALUES ('20261129-014100-f92a1d', 1795916460388712139, 'ended', NULL, 0, 0, 1795916460442887631, 'default', 'f87c5f4f808a988edb181eb5', '127.0.0.1:21302', '3000505', '', '--to/--message', 4, 10, NULL, '', '', 0, 0, 17);


--
-- Name: audit_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_seq_seq', 7, true);


--
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (seq);


--
-- Name: counters counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.counters
    ADD CONSTRAINT counters_pkey PRIMARY KEY (name);


--
-- Name: meta meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.meta
    ADD CONSTRAINT meta_pkey PRIMARY KEY (key);


--
-- Name: once_ids once_ids_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.once_ids
    ADD CONSTRAINT once_ids_pkey PRIMARY KEY (id);


--
-- Name: optouts optouts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.optouts
    ADD CONSTRAINT optouts_pkey PRIMARY KEY (mobile, sender);


--
-- Name: send_pairs send_pairs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_pairs
    ADD CONSTRAINT send_pairs_pkey PRIMARY KEY (send_id);


--
-- Name: send_records send_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_records
    ADD CONSTRAINT send_records_pkey PRIMARY KEY (send_id, seq);


--
-- Name: sends sends_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sends
    ADD CONSTRAINT sends_pkey PRIMARY KEY (id);


--
-- Name: once_ids_send; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX once_ids_send ON public.once_ids USING btree (send_id);


--
-- Name: sends_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_due ON public.sends USING btree (due_at) WHERE (due_at IS NOT NULL);


--
-- Name: sends_history; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_history ON public.sends USING btree (plan_time DESC, id DESC);


--
-- Name: sends_touched; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_touched ON public.sends USING btree (touched);


--
-- Name: send_pairs send_pairs_send_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_pairs
    ADD CONSTRAINT send_pairs_send_id_fkey FOREIGN KEY (send_id) REFERENCES public.sends(id) ON DELETE CASCADE;


--
-- Name: send_records send_records_send_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_records
    ADD CONSTRAINT send_records_send_id_fkey FOREIGN KEY (send_id) REFERENCES public.sends(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


