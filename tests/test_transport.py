"""transport.py：一次 chat API 调用。这里是密钥只发给 https 的地址；截止时间、不跟重定向、
字节上限、429/5xx 再试这些对付坏服务器的承诺，在 test_llm_hostile.py 里对着使坏的服务器查。"""
import pytest
from llm_cases import chat_for

import transport
from evolve import Evaluator, evolve


@pytest.mark.slow
def test_the_environment_key_goes_only_to_https(serve, setup, monkeypatch):
    """OPENAI_API_KEY 只给 https 的地址：明文 http 的（本机的、别人的）服务器拿不到它；
    要给就明说（api_key=）。"""
    table, train, _ = setup
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert transport.default_api_key("https://api.example.com/v1") == "sk-env"
    assert transport.default_api_key("http://127.0.0.1:8080/v1") is None
    assert transport.default_api_key("http://10.0.0.2/v1") is None
    server = serve([("reply", "no code")])
    evolve(Evaluator(train, table), 1, seed=0, llm=chat_for(server))
    evolve(Evaluator(train, table), 1, seed=0, llm=chat_for(server, api_key="sk-given"))
    assert [r["auth"] for r in server.requests] == [None, "Bearer sk-given"]
