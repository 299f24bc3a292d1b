"""班级不中断相关文字：被拒绝的答案、丢失的存储文件、教师密钥、反复猜测 —— 中文。"""

STRINGS: dict[str, str] = {
    "store.refused": "班级数据存储没有接受它（原因写在服务器日志里）",
    "store.gone": "应用运行期间，班级数据存储的文件被删除或移走了，在重新启动应用之前无法记录任何内容（服务器日志中写有该文件的位置）",
    "class.refused": "有 {n} 个答案无法保存：{reason}。它们仍保存在“我的答案”里；你的其他答案照常发送。",
    "class.sent_now": "存储已恢复：等待中的答案已经发送。",
    "teacher.no_access": "这个链接打不开班级：该班级不存在、已过期，或者密钥不是该班级教师的密钥。请打开创建班级时得到的教师链接。",
    "teacher.too_many": "这台设备尝试了太多打不开班级的链接。请等待 {seconds} 秒，再打开教师链接。",
    "short.too_many": "这台设备尝试了太多不存在的短链接。请等待 {seconds} 秒，再打开链接。",
    "class.too_many": "这台设备尝试了太多不存在的班级代码。请等待 {seconds} 秒，再打开链接。",
    "short.waiting": "短链接 {code} 暂时打不开：{reason}。本页面每隔几秒会自动重试，一旦可以就会打开课程。",
    "class.other_tab": "你之前已在另一个标签页回答过“{question}”：保留并计入的是你的第一个答案 {answer}。",
    "teacher.roster": "谁回答了（{n} 名学生）",
    "teacher.roster_help": "学生填写的昵称（“—”表示保持匿名的学生）。不要投影到屏幕上。",
    "teacher.col_student": "学生",
    "teacher.col_questions": "作答题数",
    "teacher.col_right": "答对",
    "teacher.anonymous": "—",
    "builder.local_link": "这个链接指向 {host}，也就是这台电脑本身：学生的手机打不开它。请用这台电脑在学校网络中的地址打开本页面（例如 `http://192.168.1.20:8501`；`hostname -I` 可以显示该地址），再在那里生成链接。",
    "link.text_cut": "链接中的 {name}= 有 {n} 个字符；链接最多携带 {limit} 个字符，因此只使用前 {limit} 个。",
}
